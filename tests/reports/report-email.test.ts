/**
 * Scheduled reports end to end (#22 item 6): configured through the API, queued by the alerting role's
 * sweep once per period however many processes sweep, delivered by the mail outbox to a real SMTP
 * receiver with the chart inline, and one-click unsubscribe.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { PNG } from "pngjs";
import { sendDueReports } from "../../alerting/reports/report-sweep.ts";
import { silentLogger } from "../../core/log.ts";
import { createSql } from "../../db/client.ts";
import { client, makeOrg } from "../support/api.ts";
import { startReportStack, type ReportStack } from "./support.ts";

let stack: ReportStack;
beforeAll(async () => {
  stack = await startReportStack();
}, 60_000);
afterAll(async () => {
  await stack.stop();
}, 60_000);

const sweepDeps = () => ({ sql: stack.db.sql, box: stack.server.deps.box, baseUrl: stack.server.deps.publicBaseUrl, log: silentLogger });
const mailsTo = (addr: string) => stack.smtp.mails.filter((m) => m.envelope.to.includes(addr));
const header = (mail: { parsed: { headers: { key: string; value: string }[] } }, name: string) =>
  mail.parsed.headers.find((h) => h.key === name.toLowerCase())?.value.replace(/\s+/g, "") ?? null;

async function orgWithReport(extra: Record<string, unknown> = {}) {
  const org = await makeOrg(stack.db.sql, "business");
  const call = client(stack.server.url, { key: org.api_key });
  const mon = await call("POST", "/api/v1/monitors", { name: "Checkout <API>", type: "http", config: { url: "https://example.com" }, interval_seconds: 300, paused: true });
  expect(mon.status).toBe(201);
  const team = `team-${Math.random().toString(36).slice(2, 8)}@example.test`;
  const created = await call("POST", "/api/v1/reports", {
    name: "Weekly uptime",
    scope: "org",
    frequency: "weekly",
    day: 1,
    send_time: "09:00",
    timezone: "Europe/Berlin",
    recipients: [{ type: "member", user_id: org.user_id }, { type: "email", email: team }],
    ...extra,
  });
  expect(created.status).toBe(201);
  return { org, call, team, report: created.body, monitorId: mon.body.id as string };
}

/** Makes the report due: its scheduled time moves to `at` (a Monday 09:00 in Berlin). */
const dueAt = (id: string, at: string) => stack.db.sql`update reports set next_send_at = ${new Date(at)} where id = ${id}`;

describe("scheduled reports", () => {
  it("stores the schedule and computes the next send in the report's time zone", async () => {
    const { report, org, team } = await orgWithReport();
    expect(report).toMatchObject({ name: "Weekly uptime", scope: "org", status_page_id: null, frequency: "weekly", day: 1, send_time: "09:00", enabled: true, last_sent_at: null });
    expect(report.recipients).toEqual([
      { type: "member", user_id: org.user_id, email: org.email, unsubscribed: false },
      { type: "email", user_id: null, email: team, unsubscribed: false },
    ]);
    const next = new Date(report.next_send_at);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(next.toLocaleString("en-GB", { timeZone: "Europe/Berlin", weekday: "long", hour: "2-digit", minute: "2-digit" })).toBe("Monday 09:00");
  });

  it("refuses bad settings with the error body, and hides other organisations' reports", async () => {
    const { call, report } = await orgWithReport();
    const bad = async (body: Record<string, unknown>, path: string) => {
      const r = await call("POST", "/api/v1/reports", { name: "x", scope: "org", frequency: "weekly", day: 1, send_time: "09:00", timezone: "UTC", recipients: [{ type: "email", email: "a@example.test" }], ...body });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe("VALIDATION_ERROR");
      expect(JSON.stringify(r.body.details)).toContain(path);
    };
    await bad({ timezone: "Mars/Olympus" }, "body.timezone");
    await bad({ day: 9 }, "body.day");
    await bad({ send_time: "25:00" }, "send_time");
    await bad({ scope: "status_page" }, "body.status_page_id");
    await bad({ recipients: [{ type: "member", user_id: "usr_stranger" }] }, "body.recipients");
    await bad({ recipients: [{ type: "email", email: "not an address" }] }, "body.recipients.0");
    await bad({ recipients: [] }, "recipients");
    const other = await makeOrg(stack.db.sql);
    const theirs = client(stack.server.url, { key: other.api_key });
    expect((await theirs("GET", `/api/v1/reports/${report.id}`)).status).toBe(404);
    expect((await theirs("PATCH", `/api/v1/reports/${report.id}`, { enabled: false })).status).toBe(404);
    expect((await theirs("POST", `/api/v1/reports/${report.id}/send`, {})).status).toBe(404);
    expect((await theirs("DELETE", `/api/v1/reports/${report.id}`)).status).toBe(404);
    const patched = await call("PATCH", `/api/v1/reports/${report.id}`, { frequency: "monthly", day: 15 });
    expect(patched.status).toBe(200);
    expect(new Date(patched.body.next_send_at).toLocaleString("en-GB", { timeZone: "Europe/Berlin", day: "numeric", hour: "2-digit", minute: "2-digit" })).toBe("15, 09:00");
  });

  it("mails each recipient once per period over SMTP, with the chart inline, even when three processes sweep at once", async () => {
    const { report, org, team } = await orgWithReport();
    await dueAt(report.id, "2026-11-23T08:00:00Z");
    // Three alerting processes, each on its own connection pool, find the report due at the same moment.
    const pools = [0, 1, 2].map(() => createSql(stack.db.url, { max: 2 }));
    const handled = await Promise.all(pools.map((sql) => sendDueReports({ ...sweepDeps(), sql })));
    await Promise.all(pools.map((p) => p.end()));
    expect(handled.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
    const deliveries = await stack.db.sql`select period_start, period_end, recipients from report_deliveries where report_id = ${report.id}`;
    expect(deliveries.map((d) => [d.period_start.toISOString(), d.period_end.toISOString(), d.recipients])).toEqual([["2026-11-15T23:00:00.000Z", "2026-11-22T23:00:00.000Z", 2]]);
    // A process that read the old schedule and sweeps late finds the period sent.
    await dueAt(report.id, "2026-11-23T08:00:00Z");
    await sendDueReports(sweepDeps());
    expect((await stack.db.sql`select count(*)::int as n from mail_outbox where org_id = ${org.org_id} and kind = 'report'`)[0]!.n).toBe(2);
    await stack.flushMail();
    for (const addr of [org.email, team]) {
      const mails = mailsTo(addr);
      expect(mails).toHaveLength(1);
      const mail = mails[0]!;
      expect(mail.parsed.subject).toBe(`Weekly report for ${(await stack.db.sql`select name from organisations where id = ${org.org_id}`)[0]!.name}: no data uptime (16 Nov 2026 – 22 Nov 2026)`);
      expect(mail.parsed.text).toContain("Checkout <API>: no data");
      expect(mail.parsed.html).toContain("Checkout &lt;API&gt;");
      expect(mail.parsed.html).toContain('src="cid:uptime-chart@watchpost"');
      const [image] = mail.parsed.attachments;
      expect(image).toMatchObject({ mimeType: "image/png", contentId: "<uptime-chart@watchpost>" });
      const png = PNG.sync.read(Buffer.from(image!.content as ArrayBuffer));
      expect([png.width, png.height]).toEqual([560, 120]);
      expect(header(mail, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
    }
    const after = (await client(stack.server.url, { key: org.api_key })("GET", `/api/v1/reports/${report.id}`)).body;
    expect(new Date(after.next_send_at).getTime()).toBeGreaterThan(Date.now());
    expect(after.last_sent_at).not.toBeNull();
  });

  it("leaves a report that cannot be sent due for the next pass without holding up the others", async () => {
    const broken = await orgWithReport();
    const good = await orgWithReport();
    // A zone the runtime no longer knows (written before an upgrade, say): its period cannot be computed.
    await stack.db.sql`update reports set timezone = 'Mars/Olympus', next_send_at = ${new Date("2026-11-09T08:00:00Z")} where id = ${broken.report.id}`;
    await dueAt(good.report.id, "2026-11-16T08:00:00Z");
    const handled = await sendDueReports(sweepDeps());
    expect(handled).toBeGreaterThanOrEqual(1);
    expect((await stack.db.sql`select count(*)::int as n from report_deliveries where report_id = ${good.report.id}`)[0]!.n).toBe(1);
    const [left] = await stack.db.sql`select next_send_at from reports where id = ${broken.report.id}`;
    expect(left!.next_send_at.toISOString()).toBe("2026-11-09T08:00:00.000Z");
    await stack.db.sql`delete from reports where id = ${broken.report.id}`;
  });

  it("unsubscribes an address with one click and leaves it out of the next period", async () => {
    const { report, org, team, call } = await orgWithReport();
    await dueAt(report.id, "2026-11-16T08:00:00Z");
    await sendDueReports(sweepDeps());
    await stack.flushMail();
    const mail = mailsTo(team)[0]!;
    const url = /^<(.+)>$/.exec(header(mail, "List-Unsubscribe")!)![1]!;
    expect(mail.parsed.text).toContain(url);
    // Opening the link (or a scanner fetching it) changes nothing.
    expect(await (await fetch(url)).json()).toEqual({ unsubscribed: false, subscribed: true, report: "Weekly uptime" });
    const page = await fetch(url, { headers: { accept: "text/html" } });
    expect(await page.text()).toContain("Unsubscribe");
    // RFC 8058 one-click: POST with the form body.
    const click = await fetch(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" });
    expect(await click.json()).toEqual({ unsubscribed: true, removed: true, report: "Weekly uptime" });
    expect(await (await fetch(url, { method: "POST" })).json()).toEqual({ unsubscribed: true, removed: false, report: "Weekly uptime" });
    const forged = await fetch(url.replace(/token=[^.]+/, "token=eyJ4Ijoi"), { method: "POST" });
    expect(forged.status).toBe(400);
    expect((await forged.json()).code).toBe("VALIDATION_ERROR");
    const view = (await call("GET", `/api/v1/reports/${report.id}`)).body;
    expect(view.recipients.map((r: { email: string; unsubscribed: boolean }) => [r.email, r.unsubscribed])).toEqual([[org.email, false], [team, true]]);
    // The next week goes to the member only.
    await dueAt(report.id, "2026-11-23T08:00:00Z");
    await sendDueReports(sweepDeps());
    await stack.flushMail();
    expect(mailsTo(team)).toHaveLength(1);
    expect(mailsTo(org.email)).toHaveLength(2);
  });

  it("sends a preview now to the caller, or to every recipient, without using up the period", async () => {
    const { report, org, team, call } = await orgWithReport();
    const mine = await call("POST", `/api/v1/reports/${report.id}/send`, {});
    expect(mine.status).toBe(202);
    expect(mine.body.queued).toBe(1);
    const all = await call("POST", `/api/v1/reports/${report.id}/send`, { to: "recipients" });
    expect(all.body.queued).toBe(2);
    await stack.flushMail();
    expect(mailsTo(org.email).map((m) => m.parsed.subject!.startsWith("[Preview] Weekly report"))).toEqual([true, true]);
    expect(mailsTo(team)).toHaveLength(1);
    expect((await stack.db.sql`select count(*)::int as n from report_deliveries where report_id = ${report.id}`)[0]!.n).toBe(0);
    expect((await call("POST", `/api/v1/reports/${report.id}/send`, { to: "everyone" })).status).toBe(400);
  });

  it("sends now the week the report covers: the seven days before its latest send day, not the last seven days", async () => {
    // A report sent three days ago (at 00:00 UTC) covers the seven days before that day.
    const sendDay = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() - 3));
    const isoDay = ((sendDay.getUTCDay() + 6) % 7) + 1;
    const { report, call } = await orgWithReport({ day: isoDay, send_time: "00:00", timezone: "UTC" });
    const sent = await call("POST", `/api/v1/reports/${report.id}/send`, {});
    expect(sent.status).toBe(202);
    expect(sent.body.period_end).toBe(sendDay.toISOString());
    expect(sent.body.period_start).toBe(new Date(sendDay.getTime() - 7 * 86_400_000).toISOString());
  });
});
