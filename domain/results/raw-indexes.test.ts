import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import type { Sql } from "../../db/client.ts";
import { previousFingerprint } from "../../db/queries/alert-states.ts";
import { alertChecks } from "../../db/queries/alert-timeline.ts";
import { latestResults } from "../../db/queries/monitor-metrics.ts";
import { latestResultsOf } from "../../db/queries/monitor-overview.ts";
import { countResults, insertResults, selectResultByJobId, selectResults, type ResultRecord } from "../../db/queries/results.ts";
import { averageDurationMs } from "../../db/queries/status-pages.ts";
import { ensurePartition } from "../../db/results/maintenance.ts";
import { createTestDatabase, type TestDatabase } from "../../tests/support/db.ts";
import { DAY_MS } from "./segments.ts";
import { btreeIndexColumns, createOrgWithMonitors, insertResultsEveryMinute } from "./test-fixtures.ts";

// Since migration 20261127180000 each insert into check_results maintains one per-monitor index, (org_id, monitor_id,
// scheduled_at desc), not two: (monitor_id, location, scheduled_at desc) is gone (docs/performance.md measured the
// cost per check). Every read of a monitor's raw rows names the organisation, so that index serves the reads that
// name a location too, with the location as a filter. These tests hold both: the index set, and that no such read
// falls back to a sequential scan or to the due-time key.

const MIGRATION = readFileSync(join(import.meta.dir, "..", "..", "db", "migrations", "20261127180000_check_results_drop_location_index.sql"), "utf8");
const [UP, DOWN] = MIGRATION.split("-- migrate:down") as [string, string];
const LOCATIONS = ["eu-west", "us-east", "ap-south"];
const DAYS = 2;

let db: TestDatabase;
let orgId: string;
let monitorIds: string[];
const now = Math.floor(Date.now() / 60_000) * 60_000;
const start = Math.floor(now / DAY_MS) * DAY_MS - DAYS * DAY_MS;

const record = (jobId: string, at: number): ResultRecord => ({
  job_id: jobId,
  org_id: orgId,
  monitor_id: monitorIds[0]!,
  location: "eu-west",
  location_type: "region",
  scheduled_at: new Date(at).toISOString(),
  checked_at: new Date(at + 80).toISOString(),
  status: "up",
  duration_ms: 80,
  error: null,
  data: {},
});

const count = async () => ((await db.sql`select count(*)::int as n from check_results`) as unknown as [{ n: number }])[0].n;

const btreeColumns = (relation: string) => btreeIndexColumns(db.sql, relation);

const PER_MONITOR = ["org_id, monitor_id, scheduled_at DESC", "scheduled_at, job_id"];

beforeAll(async () => {
  db = await createTestDatabase();
  ({ orgId, monitorIds } = await createOrgWithMonitors(db.sql, { planId: "unlimited", monitors: 20, intervalSeconds: 60 }));
  for (let d = start; d <= now + DAY_MS; d += DAY_MS) await ensurePartition(db.sql, new Date(d).toISOString().slice(0, 10));
  await insertResultsEveryMinute(db.sql, orgId, monitorIds, LOCATIONS, start, now); // 172,800 rows
  await db.sql`analyze check_results`;
}, 120_000);

afterAll(async () => {
  await db?.drop();
}, 30_000);

describe("the raw results' per-monitor index", () => {
  it("is one, (org_id, monitor_id, scheduled_at desc), beside the unique key, on the table and on every day's partition", async () => {
    expect(await btreeColumns("check_results")).toEqual(PER_MONITOR);
    expect(await btreeColumns(`check_results_p${new Date(now).toISOString().slice(0, 10).replaceAll("-", "")}`)).toEqual(PER_MONITOR);
  });

  it("comes back with the migration's down section and goes again with its up section; no row is lost either way", async () => {
    const rows = await count();
    await db.sql.unsafe(DOWN);
    expect(await btreeColumns("check_results")).toEqual(["monitor_id, location, scheduled_at DESC", ...PER_MONITOR].sort());
    await db.sql.unsafe(UP);
    expect(await btreeColumns("check_results")).toEqual(PER_MONITOR);
    expect(await count()).toBe(rows);
  }, 60_000);

  it("is dropped by a migration that waits for a long reader in 2 s attempts, letting ingest through between them", async () => {
    await db.sql.unsafe(DOWN);
    const reader = await db.sql.reserve();
    let migrated = false;
    let up: Promise<unknown> | undefined;
    const waits: number[] = [];
    try {
      await reader`begin`;
      await reader`select 1 from check_results limit 1`; // holds the table's share lock, as an export's cursor would
      up = db.sql.unsafe(UP).then(() => (migrated = true));
      // Ingest goes on while the reader holds the lock and the migration waits for it.
      for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        const stored = await Promise.race([
          insertResults(db.sql, [record(`${monitorIds[0]}.lock-test.${i}`, now - 30_000 + i)]).then(() => true),
          Bun.sleep(5_000).then(() => false),
        ]);
        waits.push(performance.now() - t0);
        if (!stored) break; // queued behind the migration until the reader ends
        await Bun.sleep(500);
      }
      expect(migrated).toBe(false);
    } finally {
      await reader`commit`;
      reader.release();
    }
    await up;
    expect(await btreeColumns("check_results")).toEqual(PER_MONITOR);
    expect(Math.max(...waits)).toBeLessThan(3_000);
  }, 60_000);

  it("serves every read of a monitor's raw rows, those naming a location among them, without a sequential scan or the due-time key", async () => {
    const [mon, loc] = [monitorIds[0]!, LOCATIONS[1]!];
    const filter = { orgId, monitorId: mon, from: new Date(start), to: new Date(now), location: loc };
    const incident = new Date(now - 5 * 3_600_000);
    const reads: [string, (s: Sql) => Promise<unknown>][] = [
      ["results list by location", (s) => selectResults(s, filter, { limit: 50, offset: 0 })],
      ["its total", (s) => countResults(s, filter)],
      ["alert timeline", (s) => alertChecks(s, orgId, mon, loc, incident, new Date(incident.getTime() + 3_600_000), 3_600_000, 100)],
      ["previous fingerprint", (s) => previousFingerprint(s, orgId, mon, loc, new Date(now))],
      ["metrics scrape", (s) => latestResults(s, orgId, 3600)],
      ["overview bars", (s) => latestResultsOf(s, orgId, monitorIds, 30, new Date(now - DAY_MS))],
      ["badge average", (s) => averageDurationMs(s, orgId, [mon], new Date(now - 3_600_000))],
      ["result by job id", (s) => selectResultByJobId(s, orgId, mon, `${mon}.${loc}.${now - 120_000}`)],
    ];
    for (const [name, read] of reads) {
      const scans = await scansOf(read);
      expect({ name, scannedSequentially: scans.seq }).toEqual({ name, scannedSequentially: [] });
      expect({ name, indexes: [...new Set(scans.indexes)] }).toEqual({ name, indexes: ["org_id, monitor_id, scheduled_at DESC"] });
    }
  }, 60_000);
});

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  Plans?: PlanNode[];
}

/**
 * The scans of check_results' partitions in the plans `read` runs: auto_explain logs each statement's plan as a
 * notice on a connection of its own, with sequential scans priced out of the planner's choice so that one shows only
 * where no index can serve. Returns the partitions scanned sequentially and the column lists of the indexes scanned on
 * the partitions that hold rows.
 */
async function scansOf(read: (s: Sql) => Promise<unknown>): Promise<{ seq: string[]; indexes: string[] }> {
  const notices: string[] = [];
  const conn = postgres(db.url, { max: 1, onnotice: (n) => void notices.push(String(n.message ?? "")) }) as unknown as Sql;
  const seq: string[] = [];
  const names: string[] = [];
  try {
    await conn`load 'auto_explain'`;
    await conn`set auto_explain.log_min_duration = 0`;
    await conn`set auto_explain.log_format = json`;
    await conn`set auto_explain.log_level = notice`;
    await conn`set enable_seqscan = off`;
    await read(conn);
    // Partitions with no row (the days ahead) are planned from no statistics, and any index is as cheap there.
    const holding = new Set((await db.sql<{ name: string }[]>`select distinct tableoid::regclass::text as name from check_results`).map((r) => r.name));
    // A bitmap index scan names no relation: its bitmap heap scan above it does.
    const walk = (n: PlanNode, above?: string) => {
      const relation = n["Relation Name"] ?? above;
      if (n["Node Type"] === "Seq Scan" && relation?.startsWith("check_results")) seq.push(relation);
      if (n["Index Name"] && holding.has(relation ?? "")) names.push(n["Index Name"]);
      for (const c of n.Plans ?? []) walk(c, relation);
    };
    for (const m of notices) if (m.includes("{")) walk((JSON.parse(m.slice(m.indexOf("{"))) as { Plan: PlanNode }).Plan);
    const defs = await conn<{ def: string }[]>`
      select pg_get_indexdef(i.indexrelid) as def from pg_index i join pg_class c on c.oid = i.indexrelid
      where c.relname = any(${names}::text[]) and i.indrelid in (select inhrelid from pg_inherits where inhparent = 'check_results'::regclass)`;
    return { seq, indexes: defs.map((r) => r.def.slice(r.def.indexOf("(") + 1, r.def.lastIndexOf(")"))) };
  } finally {
    await conn.end();
  }
}
