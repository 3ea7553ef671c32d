import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { resultKeyState } from "../../db/results/result-key.ts";
import { storeResults } from "./ingest.ts";
import { rekeyResults } from "./result-key.ts";
import { btreeIndexColumns, createOrgWithMonitors, makeResult } from "./test-fixtures.ts";
import { createTimescaleTestDatabase, type TimescaleTestDatabase } from "./timescale-test-db.ts";

// TimescaleDB's side of migration 20261127140000 (db/timescale/20261127140100): a fresh hypertable gets the key
// (scheduled_at, job_id) from the migration; one with rows keeps the old key until an operator runs
// `bun run cli results:rekey` (TimescaleDB builds a unique index only in one transaction, holding writes meanwhile).

let ts: TimescaleTestDatabase;
beforeAll(async () => {
  ts = await createTimescaleTestDatabase();
}, 60_000);
afterAll(async () => {
  await ts?.close();
}, 30_000);

describe("the raw results' per-monitor indexes on TimescaleDB", () => {
  // Plain storage dropped (monitor_id, location, scheduled_at desc) in migration 20261127180000; the hypertable keeps
  // it. There the results list's total is a count over the raw rows, and a location's total over the uncompressed
  // days cost five times as much through the other index (bench/location-reads.ts), against an ingest gain measured
  // on plain storage only (docs/decisions.md).
  it("are (org_id, monitor_id, scheduled_at desc) and (monitor_id, location, scheduled_at desc), beside the unique key", async () => {
    expect(await btreeIndexColumns(ts.sql, "check_results")).toEqual([
      "monitor_id, location, scheduled_at DESC",
      "org_id, monitor_id, scheduled_at DESC",
      "scheduled_at, job_id",
    ]);
  });
});

describe("the raw results' unique key on TimescaleDB", () => {
  it("is (scheduled_at, job_id) on a fresh hypertable", async () => {
    expect(await resultKeyState(ts.sql)).toEqual({ valid: true, oldKey: false });
    const [idx] = await ts.sql`select pg_get_indexdef('check_results_due_job_key'::regclass) as def`;
    expect(String(idx!.def)).toEndWith("(scheduled_at, job_id)");
  });

  it("moves a hypertable with history, a compressed chunk among it, to the new key; a job is still stored once", async () => {
    // As the migration finds a database with rows: the old key only.
    await ts.sql`drop index check_results_due_job_key`;
    await ts.sql`alter table check_results add constraint check_results_job_key unique (job_id, scheduled_at)`;
    const { orgId, monitorIds: [mon] } = await createOrgWithMonitors(ts.sql);
    const rows = Array.from({ length: 40 }, (_, i) => makeResult(orgId, mon!, new Date(Date.parse("2026-09-01T00:00:00Z") + i * 3_600_000), "up"));
    expect((await storeResults(ts.sql, rows)).inserted).toHaveLength(40);
    await ts.sql`select compress_chunk(c, if_not_compressed => true) from show_chunks('check_results', older_than => ${new Date("2026-09-02T00:00:00Z")}::timestamptz) c`;
    expect(await resultKeyState(ts.sql)).toEqual({ valid: false, oldKey: true });

    // Housekeeping leaves it to an operator: the build would hold ingest's writes until it ends.
    expect(await rekeyResults(ts.sql)).toEqual({ built: [], droppedOldKey: false, done: false, waitsForOperator: true });
    expect(await resultKeyState(ts.sql)).toEqual({ valid: false, oldKey: true });

    expect(await rekeyResults(ts.sql, { lockingBuild: true })).toEqual({ built: ["check_results"], droppedOldKey: true, done: true, waitsForOperator: false });
    expect(await resultKeyState(ts.sql)).toEqual({ valid: true, oldKey: false });
    expect(await rekeyResults(ts.sql)).toEqual({ built: [], droppedOldKey: false, done: true, waitsForOperator: false });

    // Both days, the compressed one too: stored once.
    expect((await storeResults(ts.sql, [rows[3]!, rows[35]!])).inserted).toEqual([]);
    const [n] = await ts.sql`select count(*)::int as n from check_results where monitor_id = ${mon!}`;
    expect(n!.n).toBe(40);
  }, 60_000);
});
