/** The numbers in a report (#22 item 6), computed from seeded check results in a real PostgreSQL. */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { storeResults } from "../../domain/results/ingest.ts";
import { makeResult } from "../../domain/results/test-fixtures.ts";
import { computeReportData } from "../../domain/reports/data.ts";
import { periodOf } from "../../domain/reports/schedule.ts";
import { orgWithPage } from "../status-pages/support.ts";
import { client } from "../support/api.ts";
import { startReportStack, type ReportStack } from "./support.ts";

let stack: ReportStack;
beforeAll(async () => {
  stack = await startReportStack();
}, 60_000);
afterAll(async () => {
  await stack.stop();
}, 60_000);

const HOUR = 3_600_000;

describe("report data", () => {
  it("gives uptime per monitor, the slowest monitors, incidents and each local day's uptime of the last week", async () => {
    const { org, apiMon, webMon, pageId } = await orgWithPage(stack.api);
    const call = client(stack.server.url, { key: org.api_key });
    const other = (await call("POST", "/api/v1/monitors", { name: "Batch", type: "http", config: { url: "https://example.com" }, interval_seconds: 300, paused: true })).body.id as string;
    const report = { org_id: org.org_id, scope: "org" as const, status_page_id: null, frequency: "weekly" as const, timezone: "Europe/Berlin" };
    const period = periodOf(report, new Date());
    // Ten checks a day around local noon: API at 100 ms with one failure on the second day, Website at 400 ms always up.
    const results = [];
    for (let d = 0; d < 7; d++) {
      const noon = period.from.getTime() + d * 24 * HOUR + 12 * HOUR;
      for (let i = 0; i < 10; i++) {
        const at = new Date(noon + i * 300_000);
        results.push(makeResult(org.org_id, apiMon, at, d === 1 && i === 0 ? "down" : "up", { duration_ms: 100 }));
        results.push(makeResult(org.org_id, webMon, at, "up", { duration_ms: 400 }));
      }
    }
    // Outside the period: ignored.
    results.push(makeResult(org.org_id, apiMon, new Date(period.from.getTime() - HOUR), "down", { duration_ms: 9000 }));
    await storeResults(stack.db.sql, results);
    const inPeriod = await call("POST", "/api/v1/incidents", { title: "Slow API", impact: "minor", message: "Looking", page_ids: [pageId] });
    const before = await call("POST", "/api/v1/incidents", { title: "Old outage", impact: "major", message: "Gone", page_ids: [pageId] });
    await stack.db.sql`update incidents set created_at = ${new Date(period.from.getTime() + 30 * HOUR)} where id = ${inPeriod.body.id}`;
    await stack.db.sql`update incidents set created_at = ${new Date(period.from.getTime() - 100 * HOUR)}, resolved_at = ${new Date(period.from.getTime() - 90 * HOUR)}, status = 'resolved' where id = ${before.body.id}`;

    const data = await computeReportData(stack.db.sql, report, period);
    expect(data.title).toStartWith("Org ");
    expect(data.period).toEqual(period);
    const byName = Object.fromEntries(data.monitors.map((m) => [m.name, m]));
    expect(Object.keys(byName).sort()).toEqual(["API", "Batch", "Website"]);
    expect(byName.API).toMatchObject({ id: apiMon, checks: 70, failed_checks: 1, downtime_seconds: 300, avg_ms: 100 });
    expect(byName.API!.uptime_pct).toBeCloseTo((69 / 70) * 100, 6);
    expect(byName.Website).toMatchObject({ uptime_pct: 100, checks: 70, failed_checks: 0, downtime_seconds: 0, avg_ms: 400 });
    expect(byName.Batch).toMatchObject({ id: other, uptime_pct: null, checks: 0, avg_ms: null, downtime_seconds: null });
    expect(data.uptime_pct).toBeCloseTo((139 / 140) * 100, 6);
    expect(data.slowest.map((m) => m.name)).toEqual(["Website", "API"]);
    expect(data.incidents.map((i) => i.title)).toEqual(["Slow API"]);
    expect(data.daily).toHaveLength(7);
    expect(data.daily[1]!.uptime_pct).toBeCloseTo((19 / 20) * 100, 6);
    expect(data.daily.filter((d, i) => i !== 1).every((d) => d.uptime_pct === 100)).toBe(true);
    // Local days of Berlin, in order.
    expect(data.daily[0]!.date).toBe(period.from.toLocaleDateString("sv-SE", { timeZone: "Europe/Berlin" }));

    // A status-page report covers the page's monitors only.
    const pageData = await computeReportData(stack.db.sql, { ...report, scope: "status_page", status_page_id: pageId }, period);
    expect(pageData.title).toBe("Acme Status");
    expect(pageData.monitors.map((m) => m.name).sort()).toEqual(["API", "Website"]);
    expect(pageData.incidents.map((i) => i.title)).toEqual(["Slow API"]);
  });

  it("reports on the previous calendar month for a monthly report, in the report's time zone", () => {
    const p = periodOf({ frequency: "monthly", timezone: "America/New_York" }, new Date("2026-03-01T15:00:00Z"));
    expect(p.from.toISOString()).toBe("2026-02-01T05:00:00.000Z");
    expect(p.to.toISOString()).toBe("2026-03-01T05:00:00.000Z");
  });
});
