import { afterAll, beforeAll, expect, it } from "bun:test";
import { randomBytes } from "node:crypto";
import { type Bus, createMemoryBus } from "../core/bus/index.ts";
import { newId } from "../core/ids.ts";
import { resultSubject } from "../schemas/messages/check-messages.ts";
import { silentLogger } from "../core/log.ts";
import { createTestDatabase, type TestDatabase } from "../tests/support/db.ts";
import { type SmtpReceiver, startSmtpReceiver } from "./channels/email/smtp-receiver.ts";
import { loadAlertingConfig } from "./config.ts";
import { startAlertingRole } from "./role.ts";
import { alertingOrg, result, testBox, until } from "./testing/fixtures.ts";

let db: TestDatabase;
let bus: Bus;
let smtp: SmtpReceiver;
let role: Awaited<ReturnType<typeof startAlertingRole>>;

beforeAll(async () => {
  db = await createTestDatabase();
  bus = createMemoryBus({ log: silentLogger });
  smtp = await startSmtpReceiver({ user: "alerts", pass: "smtp-password" });
  // Exactly what `bun run alerting` reads: the deployment's SMTP server comes from the environment.
  const config = loadAlertingConfig({
    DATABASE_URL: db.url,
    SMTP_HOST: "127.0.0.1",
    SMTP_PORT: String(smtp.settings.port),
    SMTP_USER: "alerts",
    SMTP_PASSWORD: "smtp-password",
    SMTP_FROM: "Watchpost <alerts@watchpost.example>",
    ALERTING_POLL_MS: "50",
    ALERTING_RUNNER_SWEEP_MS: "100",
  });
  role = await startAlertingRole({ config, sql: db.sql, bus, box: testBox, log: silentLogger });
}, 60_000);
afterAll(async () => {
  await role.stop();
  await bus.close();
  await smtp.close();
  await db.drop();
}, 60_000);

it("stores results, and an email channel's alert goes out through the SMTP server the environment names", async () => {
  const o = await alertingOrg(db.sql);
  const mon = await o.monitor([], "Checkout API");
  const ch = await o.channel("email", { to: ["oncall@acme.example"] });
  await o.rule({ channels: [{ channel_id: ch, delay_minutes: 0 }] });
  await bus.publishResult(resultSubject(o.orgId, mon), result(o.orgId, mon, "down"));
  await until(() => smtp.mails.length > 0, 10_000, "the alert email");
  const mail = smtp.last();
  expect(mail.envelope).toEqual({ from: "alerts@watchpost.example", to: ["oncall@acme.example"] });
  expect(mail.parsed.subject).toBe("[Watchpost] 🔴 Alert: Checkout API");
  expect(mail.parsed.html).toContain("Checkout API");
  const history = await until(async () => (await db.sql`select status from alert_history where org_id = ${o.orgId}`)[0]);
  expect(history.status).toBe("sent");
  // Ingest runs in the same role: the result is stored.
  await until(async () => (await db.sql`select 1 from check_results where monitor_id = ${mon}`).length === 1, 10_000, "the stored result");
});

it("puts a runner that stopped heartbeating into the in-app feed", async () => {
  const o = await alertingOrg(db.sql);
  const id = newId("run");
  await db.sql`insert into runners (id, org_id, name, token_hash, heartbeat_interval_ms, last_seen_at)
               values (${id}, ${o.orgId}, 'rack 2', ${randomBytes(32)}, 30000, now() - interval '2 minutes')`;
  const note = await until(async () => (await db.sql`select type, title from notifications where org_id = ${o.orgId}`)[0], 10_000, "the runner notice");
  expect(note).toEqual({ type: "runner.offline", title: "Runner offline: rack 2" });
});
