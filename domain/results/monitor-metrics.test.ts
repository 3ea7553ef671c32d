import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Sql } from "../../db/client.ts";
import { createTestDatabase, type TestDatabase } from "../../tests/support/db.ts";
import type { Actor } from "../access/actor.ts";
import { storeResults } from "./ingest.ts";
import { listMonitorSeries, type MonitorSeries } from "./monitor-metrics.ts";
import { createOrgWithMonitors, makeResult } from "./test-fixtures.ts";
import { createTimescaleTestDatabase, type TimescaleTestDatabase } from "./timescale-test-db.ts";

// The scrape's figures come from the rollups: rollup tables on plain PostgreSQL, real-time continuous
// aggregates on TimescaleDB (part materialised, part aggregated at query time). Both must agree.

let plain: TestDatabase;
let ts: TimescaleTestDatabase;
let orgId: string;
let monitorIds: string[];

const actorOf = (org: string): Actor => ({ orgId: org, userId: "usr_test", identity: { kind: "api_key" } as Actor["identity"], ip: "127.0.0.1" });

/** Results of the current UTC hour (the counters') and one of the hour before, which the counters leave out. */
function results(now: number) {
  const [a, b] = monitorIds as [string, string];
  const hour = Math.floor(now / 3_600_000) * 3_600_000;
  const recent = new Date(Math.max(hour + 10, now - 30_000));
  const earlier = new Date(hour + Math.floor((recent.getTime() - hour) / 2));
  return [
    makeResult(orgId, a, new Date(hour - 10 * 60_000), "up", { location: "eu-west", duration_ms: 40 }),
    makeResult(orgId, a, earlier, "up", { location: "eu-west", duration_ms: 60 }),
    makeResult(orgId, a, recent, "timeout", { location: "eu-west", duration_ms: 30_000 }),
    makeResult(orgId, a, recent, "up", { location: "run_office", location_type: "runner", duration_ms: 15 }),
    makeResult(orgId, b, recent, "degraded", { location: "eu-west", duration_ms: 900, data: { cert_days_left: 9, cert_expires_at: "2026-12-09T00:00:00.000Z" } }),
  ];
}

beforeAll(async () => {
  [plain, ts] = await Promise.all([createTestDatabase(), createTimescaleTestDatabase()]);
  ({ orgId, monitorIds } = await createOrgWithMonitors(plain.sql, { monitors: 2 }));
  await createOrgWithMonitors(ts.sql, { ids: { orgId, monitorIds } });
  await plain.sql`update monitors set tags = '{web,checkout}' where id = ${monitorIds[0]!}`;
  await ts.sql`update monitors set tags = '{web,checkout}' where id = ${monitorIds[0]!}`;
  const now = Date.now();
  const rows = results(now);
  await storeResults(plain.sql, rows);
  // TimescaleDB: the result of the hour before materialised, the current hour's aggregated at query time. The refresh must end before the newest ones' hour: a result stored
  // into an hour already materialised shows only after the next refresh (as the policy's one-hour end
  // offset ensures in service; docs/results-and-uptime.md).
  await storeResults(ts.sql, rows.slice(0, 2));
  await ts.refreshAggregates(null, new Date(Math.floor(now / 3_600_000) * 3_600_000));
  await storeResults(ts.sql, rows.slice(2));
}, 120_000);

afterAll(async () => {
  await Promise.all([plain?.drop(), ts?.close()]);
}, 30_000);

const series = (sql: Sql) => listMonitorSeries({ sql, actor: actorOf(orgId) });

describe("listMonitorSeries", () => {
  it("gives one series per monitor and location with status, window and expiry figures", async () => {
    const got = await series(plain.sql);
    const [a, b] = monitorIds as [string, string];
    expect(got.map((s) => [s.monitorId, s.region])).toEqual([...[[a, "eu-west"], [a, "run_office"]], [b, "eu-west"]].sort((x, y) => (x[0]! < y[0]! ? -1 : x[0]! > y[0]! ? 1 : 0)));
    const aEu = got.find((s) => s.monitorId === a && s.region === "eu-west")!;
    expect(aEu).toMatchObject({ group: "checkout", tags: "checkout,web", up: 0, certDays: null, certExpirySeconds: null, alertsFiring: 0, maintenance: 0 });
    // The result of the hour before is not counted: the counters restart at each UTC hour.
    expect(aEu.checks).toEqual({ up: 1, down: 0, degraded: 0, timeout: 1, unavailable: 0 });
    // 60 ms counts from the 0.1 s bound on; 30 s (bucket [30 s, 40 s)) only from the 60 s bound.
    expect(aEu.responseTime).toEqual({ buckets: [0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2], sumSeconds: 30.06, count: 2 });
    expect(got.find((s) => s.monitorId === b)).toMatchObject({ up: 1, certDays: 9, certExpirySeconds: Date.parse("2026-12-09T00:00:00Z") / 1000, checks: { degraded: 1 } });
  });

  it("answers the same on TimescaleDB's continuous aggregates as on plain PostgreSQL's rollup tables", async () => {
    const strip = (all: MonitorSeries[]) => all.map((s) => ({ ...s, lastCheckSeconds: Math.round(s.lastCheckSeconds ?? 0) }));
    expect(strip(await series(ts.sql))).toEqual(strip(await series(plain.sql)));
  });

  it("shows nothing of another organisation", async () => {
    const other = await createOrgWithMonitors(plain.sql);
    expect(await listMonitorSeries({ sql: plain.sql, actor: actorOf(other.orgId) })).toEqual([]);
  });
});
