/** Two alerting processes on one database: a due report goes out once per recipient, by SMTP (#22 item 6). */
import { afterAll, beforeAll, expect, it } from "bun:test";
import { startSmtpReceiver, type SmtpReceiver } from "../../alerting/channels/email/smtp-receiver.ts";
import { loadAlertingConfig } from "../../alerting/config.ts";
import { startAlertingRole } from "../../alerting/role.ts";
import { testBox, until } from "../../alerting/testing/fixtures.ts";
import { createMemoryBus } from "../../core/bus/index.ts";
import { silentLogger } from "../../core/log.ts";
import { insertReport } from "../../db/queries/reports.ts";
import { createOrgWithMonitors } from "../../domain/results/test-fixtures.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";

let db: TestDatabase;
let smtp: SmtpReceiver;
let roles: Awaited<ReturnType<typeof startAlertingRole>>[] = [];
const buses = [createMemoryBus({ log: silentLogger }), createMemoryBus({ log: silentLogger })];

beforeAll(async () => {
  db = await createTestDatabase();
  smtp = await startSmtpReceiver({ user: "alerts", pass: "smtp-password" });
}, 60_000);
afterAll(async () => {
  for (const r of roles) await r.stop();
  for (const b of buses) await b.close();
  await smtp.close();
  await db.drop();
}, 60_000);

/** The latest 1st of a month at 08:00 UTC at or before now: a monthly report due then, its next send a month on. */
function monthlyDue(now = new Date()) {
  const at = (monthsBack: number) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - monthsBack, 1, 8));
  const back = at(0) <= now ? 0 : 1;
  const period = at(back + 1);
  const lastDay = new Date(Date.UTC(period.getUTCFullYear(), period.getUTCMonth() + 1, 0));
  const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const label = (d: Date) => `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
  return { due: at(back), next: at(back - 1), periodStart: new Date(Date.UTC(period.getUTCFullYear(), period.getUTCMonth(), 1)), label: `${label(period)} – ${label(lastDay)}` };
}

it("sends a due report once per recipient when two alerting processes run", async () => {
  // Relative to today: the sweep has no clock of its own, so a fixed due date would plan its next send past the
  // date the test expects once the calendar passes it.
  const month = monthlyDue();
  const { orgId } = await createOrgWithMonitors(db.sql, { monitors: 2 });
  const to = ["a@acme.example", "b@acme.example"];
  const report = await insertReport(db.sql, "rep_roles", orgId, {
    name: "Monthly",
    scope: "org",
    status_page_id: null,
    frequency: "monthly",
    day: 1,
    send_time: "08:00",
    timezone: "UTC",
    recipients: to.map((email) => ({ type: "email" as const, email })),
    enabled: true,
    next_send_at: month.due,
  });
  const config = loadAlertingConfig({
    DATABASE_URL: db.url,
    SMTP_HOST: "127.0.0.1",
    SMTP_PORT: String(smtp.settings.port),
    SMTP_USER: "alerts",
    SMTP_PASSWORD: "smtp-password",
    SMTP_FROM: "Watchpost <reports@watchpost.example>",
    PUBLIC_BASE_URL: "https://watchpost.example",
  });
  // Both processes sweep as they start.
  roles = await Promise.all(buses.map((bus) => startAlertingRole({ config, sql: db.sql, bus, box: testBox, log: silentLogger })));
  await until(() => smtp.mails.length >= 2, 15_000, "the report emails");
  await Bun.sleep(500);
  expect(smtp.mails.map((m) => m.envelope.to[0]).sort()).toEqual(to);
  const mail = smtp.mails[0]!;
  expect(mail.parsed.subject).toBe(`Monthly report for Results test: no data uptime (${month.label})`);
  expect(mail.parsed.text).toContain("https://watchpost.example/api/v1/reports/unsubscribe?token=");
  expect([...(await db.sql`select period_start, recipients from report_deliveries where report_id = ${report.id}`)]).toEqual([{ period_start: month.periodStart, recipients: 2 }]);
  const [row] = await db.sql`select next_send_at, last_sent_at from reports where id = ${report.id}`;
  expect(row!.next_send_at.toISOString()).toBe(month.next.toISOString());
  expect(row!.last_sent_at).not.toBeNull();
}, 30_000);
