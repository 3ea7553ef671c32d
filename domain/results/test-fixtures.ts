import type { Sql } from "../../db/client.ts";
import { newId } from "../../core/ids.ts";
import { RESULT_STATUSES, type CheckResultInput, type ResultStatus } from "./types.ts";

/** A new organisation (on `planId`) with `monitors` monitors, inserted directly; `ids` reuses given ids. */
export async function createOrgWithMonitors(
  sql: Sql,
  opts: { planId?: string; monitors?: number; intervalSeconds?: number; ids?: { orgId: string; monitorIds: string[] } } = {},
): Promise<{ orgId: string; monitorIds: string[] }> {
  const orgId = opts.ids?.orgId ?? newId("org");
  await sql`insert into organisations (id, name, plan_id) values (${orgId}, ${"Results test"}, ${opts.planId ?? "free"})`;
  const monitorIds = opts.ids?.monitorIds ?? Array.from({ length: opts.monitors ?? 1 }, () => newId("mon"));
  for (const id of monitorIds) {
    await sql`
      insert into monitors (id, org_id, name, type, config, interval_seconds, timeout_ms)
      values (${id}, ${orgId}, ${"m"}, ${"http"}, ${sql.json({ url: "https://example.com" })}, ${opts.intervalSeconds ?? 60}, ${30000})`;
  }
  return { orgId, monitorIds };
}

let jobSeq = 0;

/** One result; `at` is both the due time and (plus 1 s) the check time unless given. */
export function makeResult(
  orgId: string,
  monitorId: string,
  at: string | Date,
  status: ResultStatus,
  extra: Partial<CheckResultInput> = {},
): CheckResultInput {
  const scheduled = new Date(at);
  return {
    job_id: `job_${monitorId}_${extra.location ?? "eu"}_${scheduled.getTime()}_${jobSeq++}`,
    org_id: orgId,
    monitor_id: monitorId,
    location: "eu",
    location_type: "region",
    scheduled_at: scheduled,
    checked_at: new Date(scheduled.getTime() + 1000),
    status,
    duration_ms: 100,
    error: status === "up" || status === "degraded" ? null : `${status}`,
    data: { status_code: status === "up" ? 200 : 500 },
    ...extra,
  };
}

/** Deterministic PRNG (mulberry32), so a failing generated dataset can be replayed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Results every `intervalSeconds` per location over [start, start + days), every status, durations
 * log-uniform from 0 to 150 s (so every histogram bucket is hit), plus a few redeliveries.
 */
export function generateDataset(opts: {
  orgId: string;
  monitorIds: string[];
  locations: string[];
  start: Date;
  days: number;
  intervalSeconds: number;
  seed: number;
}): CheckResultInput[] {
  const rand = prng(opts.seed);
  const weights: [ResultStatus, number][] = [["up", 0.7], ["degraded", 0.08], ["down", 0.1], ["timeout", 0.06], ["unavailable", 0.06]];
  const pick = (): ResultStatus => {
    let x = rand();
    for (const [s, w] of weights) if ((x -= w) < 0) return s;
    return RESULT_STATUSES[0];
  };
  const out: CheckResultInput[] = [];
  const end = opts.start.getTime() + opts.days * 86_400_000;
  for (const monitorId of opts.monitorIds) {
    for (const [li, location] of opts.locations.entries()) {
      // Each location starts at its own offset so due times are not hour-aligned.
      for (let t = opts.start.getTime() + li * 7_000 + 3_000; t < end; t += opts.intervalSeconds * 1000) {
        const status = pick();
        const duration = status === "unavailable" ? 0 : Math.floor(Math.exp(rand() * Math.log(150_001)) - 1);
        const r: CheckResultInput = {
          job_id: `job_${monitorId}_${location}_${t}`,
          org_id: opts.orgId,
          monitor_id: monitorId,
          location,
          location_type: location.startsWith("run_") ? "runner" : "region",
          scheduled_at: new Date(t),
          checked_at: new Date(t + 200 + Math.floor(rand() * 3000)),
          status,
          duration_ms: duration,
          error: status === "up" || status === "degraded" ? null : status,
          data: { status_code: status === "down" ? 503 : 200, ttfb_ms: Math.floor(duration / 2) },
        };
        out.push(r);
        if (rand() < 0.01) out.push({ ...r, checked_at: new Date(t + 5000), status: "up" });
      }
    }
  }
  return out;
}

/**
 * Inserts one raw result a minute per monitor and location, due in [from, to) (whole minutes), one statement per UTC
 * day; the days' partitions must exist. Every 97th minute is down; each row carries the monitor's certificate
 * fingerprint. For reads over history at a realistic size (tests and benches of the raw results' indexes).
 */
export async function insertResultsEveryMinute(sql: Sql, orgId: string, monitorIds: string[], locations: string[], from: number, to: number): Promise<void> {
  for (let d = from; d < to; d = Math.floor(d / 86_400_000) * 86_400_000 + 86_400_000) {
    const end = Math.min(Math.floor(d / 86_400_000) * 86_400_000 + 86_400_000, to);
    await sql`
      insert into check_results (job_id, org_id, monitor_id, location, location_type, scheduled_at, checked_at, status, duration_ms, error, data)
      select m || '.' || l || '.' || extract(epoch from t)::bigint * 1000, ${orgId}, m, l, 'region', t, t + interval '80 ms',
        case when (extract(epoch from t)::bigint / 60) % 97 = 0 then 'down' else 'up' end, 80, null,
        jsonb_build_object('status_code', 200, 'fingerprint_sha256', md5(m))
      from unnest(${monitorIds}::text[]) m, unnest(${locations}::text[]) l,
        generate_series(${new Date(d)}::timestamptz, ${new Date(end - 60_000)}::timestamptz, interval '1 minute') t`;
  }
}

/** The btree indexes of a relation (a table, a partition or a hypertable), as their column lists, sorted. */
export async function btreeIndexColumns(sql: Sql, relation: string): Promise<string[]> {
  const rows = await sql<{ def: string }[]>`
    select pg_get_indexdef(i.indexrelid) as def from pg_index i join pg_class c on c.oid = i.indexrelid join pg_am a on a.oid = c.relam
    where i.indrelid = ${relation}::regclass and a.amname = 'btree'`;
  return rows.map((r) => r.def.slice(r.def.indexOf("(") + 1, r.def.lastIndexOf(")"))).sort();
}
