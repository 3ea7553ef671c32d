import type { Sql } from "../client.ts";

export interface WorkerBeat {
  workerId: string;
  region: string;
  hostname: string;
  version: string;
  concurrency: number;
  /** Browser engines the worker offers (BROWSERS). */
  browsers?: string[];
  inFlight: number;
  checksTotal: number;
  recentP50Ms: number | null;
  startedAt: Date;
}

/** One heartbeat; last_seen_at is the database's clock so hosts with skewed clocks agree. */
export async function upsertWorkerBeat(sql: Sql, b: WorkerBeat): Promise<void> {
  await sql`
    insert into region_workers (worker_id, region, hostname, version, concurrency, browsers, in_flight, checks_total, recent_p50_ms, started_at, last_seen_at)
    values (${b.workerId}, ${b.region}, ${b.hostname}, ${b.version}, ${b.concurrency}, ${b.browsers ?? []}, ${b.inFlight}, ${b.checksTotal}, ${b.recentP50Ms}, ${b.startedAt}, now())
    on conflict (worker_id) do update set region = excluded.region, in_flight = excluded.in_flight, checks_total = excluded.checks_total,
      recent_p50_ms = excluded.recent_p50_ms, concurrency = excluded.concurrency, browsers = excluded.browsers, last_seen_at = now()`;
}

export async function deleteWorker(sql: Sql, workerId: string): Promise<void> {
  await sql`delete from region_workers where worker_id = ${workerId}`;
}

/** Rows of workers gone for longer than `olderThanSeconds` (killed without a clean stop). */
export async function pruneWorkers(sql: Sql, olderThanSeconds: number): Promise<number> {
  const rows = await sql`delete from region_workers where last_seen_at < now() - make_interval(secs => ${olderThanSeconds}) returning worker_id`;
  return rows.length;
}

export interface RegionWorkersRow {
  region: string;
  online_workers: number;
  last_seen_at: Date | null;
  in_flight: number;
  /** Median over the online workers' recent medians. */
  p50_ms: number | null;
}

export async function regionWorkerSummary(sql: Sql, ttlSeconds: number): Promise<RegionWorkersRow[]> {
  return sql<RegionWorkersRow[]>`
    select region,
      count(*) filter (where last_seen_at > now() - make_interval(secs => ${ttlSeconds}))::int as online_workers,
      max(last_seen_at) as last_seen_at,
      coalesce(sum(in_flight) filter (where last_seen_at > now() - make_interval(secs => ${ttlSeconds})), 0)::int as in_flight,
      (percentile_cont(0.5) within group (order by recent_p50_ms)
        filter (where last_seen_at > now() - make_interval(secs => ${ttlSeconds})))::float8 as p50_ms
    from region_workers group by region`;
}
