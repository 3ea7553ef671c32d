import type { Sql } from "../client.ts";
import { type BlindSpan, FULL_VIEW } from "../../core/process/blind-time.ts";
import { offlineAfterSeconds, runnerSilenceSeconds } from "./runner-liveness.ts";

/** What the scheduler needs of a monitor. Reads span every organisation: the scheduler serves them all. */
export interface SchedulableRow {
  id: string;
  org_id: string;
  type: string;
  config: Record<string, unknown>;
  secrets_enc: string | null;
  interval_seconds: number;
  timeout_ms: number;
  regions: string[];
  runner_ids: string[];
  tags: string[];
  /** updated_at in ms; the reconcile compares it with what the schedule holds. */
  version: number;
}

const schedulable = (sql: Sql) => sql`not paused and not suspended and type <> 'heartbeat'`;

const cols = (sql: Sql) => sql`
  id, org_id, type, config, secrets_enc, interval_seconds, timeout_ms, regions, runner_ids, tags,
  (extract(epoch from updated_at) * 1000)::float8 as version`;

/** Every monitor that should be checked now, across organisations, in pages by id. */
export async function* allSchedulable(sql: Sql, pageSize = 5000): AsyncGenerator<SchedulableRow[]> {
  let after = "";
  for (;;) {
    const rows = await sql<SchedulableRow[]>`
      select ${cols(sql)} from monitors where ${schedulable(sql)} and id > ${after} order by id limit ${pageSize}`;
    if (rows.length > 0) yield rows;
    if (rows.length < pageSize) return;
    after = rows[rows.length - 1]!.id;
  }
}

/** The given monitors that should be checked; ids not returned are deleted, paused, suspended or heartbeats. */
export function schedulableByIds(sql: Sql, ids: string[]): Promise<SchedulableRow[]> {
  return sql<SchedulableRow[]>`select ${cols(sql)} from monitors where id = any(${ids}) and ${schedulable(sql)}`;
}

/**
 * The reconcile compares the schedule with the table by buckets of ids: a bucket is an id's last two characters
 * (256 buckets of the hex ids newId makes), its digest the count of its monitors and the sum of a residue of each one's
 * version (updated_at in whole microseconds, modulo a prime). Only the buckets whose digests differ are read id by
 * id, so a reconcile that finds nothing reads 256 rows, not one per monitor. The functions below compute the same on
 * both sides: change them together.
 */
export const reconcileBucketOf = (id: string): number => (id.charCodeAt(id.length - 2) << 16) | id.charCodeAt(id.length - 1);

const DIGEST_PRIME = 1_000_003;

/** A version's (ms since the epoch, microsecond fraction, as `cols` reads it) residue in a bucket's digest. */
export const versionResidue = (version: number): number => Math.round(version * 1000) % DIGEST_PRIME;

export interface BucketDigest {
  count: number;
  /** Sum of the bucket's versions' residues (exact: below 2^53 up to 9·10^9 monitors in one bucket). */
  sum: number;
}

/** bucket (reconcileBucketOf) → digest of the schedulable monitors in it. */
export async function schedulableDigests(sql: Sql): Promise<Map<number, BucketDigest>> {
  const rows = await sql<{ bucket: string; count: number; sum: number }[]>`
    select right(id, 2) as bucket, count(*)::int as count,
      sum(((extract(epoch from updated_at) * 1000000)::bigint % ${DIGEST_PRIME}))::float8 as sum
    from monitors where ${schedulable(sql)} group by 1`;
  return new Map(rows.map((r) => [reconcileBucketOf(r.bucket), { count: r.count, sum: r.sum }]));
}

/** id → version of the schedulable monitors in the given buckets (reconcileBucketOf): the reconcile's second read. */
export async function schedulableVersionsIn(sql: Sql, buckets: number[]): Promise<Map<string, number>> {
  const suffixes = buckets.map((b) => (b >>> 16 ? String.fromCharCode(b >>> 16) : "") + String.fromCharCode(b & 0xffff));
  const rows = await sql<{ id: string; version: number }[]>`
    select id, (extract(epoch from updated_at) * 1000)::float8 as version from monitors
    where right(id, 2) = any(${suffixes}) and ${schedulable(sql)}`;
  return new Map(rows.map((r) => [r.id, r.version]));
}

/** Due times up to this instant (ms) have been handled by some leader; null before the first. */
export async function readWatermark(sql: Sql): Promise<number | null> {
  const [row] = await sql<{ ms: number | null }[]>`select (extract(epoch from published_through) * 1000)::float8 as ms from scheduler_state where id = 1`;
  return row?.ms ?? null;
}

export async function writeWatermark(sql: Sql, throughMs: number, leaderId: string): Promise<void> {
  await sql`
    insert into scheduler_state (id, published_through, leader_id, updated_at) values (1, to_timestamp(${throughMs / 1000}), ${leaderId}, now())
    on conflict (id) do update set published_through = greatest(scheduler_state.published_through, excluded.published_through),
      leader_id = excluded.leader_id, updated_at = now()`;
}

/**
 * A worker's beat newer than this counts as online: within `ttlSeconds` of the newest beat of any worker (by the
 * database's clock), and of now once no beat came for `stallSeconds` past the TTL. While beats stop everywhere at
 * once, their path (the bus, ingest, the database) is down, not every worker; a region silent while another beats
 * is offline after the TTL as before.
 */
export const onlineSince = (sql: Sql, ttlSeconds: number, stallSeconds: number) => sql`greatest(
    now() - make_interval(secs => ${ttlSeconds + stallSeconds}),
    least(now(), (select max(last_seen_at) from region_workers)) - make_interval(secs => ${ttlSeconds}))`;

/** Regions with a worker online (`onlineSince`). */
export async function onlineRegions(sql: Sql, ttlSeconds: number, stallSeconds: number): Promise<Set<string>> {
  const rows = await sql<{ region: string }[]>`
    select distinct region from region_workers where last_seen_at > ${onlineSince(sql, ttlSeconds, stallSeconds)}`;
  return new Set(rows.map((r) => r.region));
}

/** Checks the online workers of each region run at once (the sum of their CONCURRENCY): the scheduler's backpressure. */
export async function onlineRegionConcurrency(sql: Sql, ttlSeconds: number, stallSeconds: number): Promise<Map<string, number>> {
  const rows = await sql<{ region: string; concurrency: number }[]>`
    select region, sum(concurrency)::int as concurrency from region_workers
    where last_seen_at > ${onlineSince(sql, ttlSeconds, stallSeconds)} group by region`;
  return new Map(rows.map((r) => [r.region, r.concurrency]));
}

/**
 * Runners seen recently and neither revoked, suspended nor stopped (ended their session), with the checks each runs at once (its CONCURRENCY),
 * when the runners table exists (it arrives with self-hosted runners); null when it does not, so every runner
 * counts as offline. `blind`: what the asking process could not see, not counted as silence (`runnerSilenceSeconds`).
 */
export async function onlineRunners(sql: Sql, ttlSeconds: number, blind: BlindSpan = FULL_VIEW): Promise<Map<string, number> | null> {
  const [t] = await sql<{ exists: boolean }[]>`select to_regclass('runners') is not null as exists`;
  if (!t?.exists) return null;
  // Three missed heartbeats (at the runner's own interval) make it offline; ttlSeconds is the floor.
  const rows = await sql<{ id: string; concurrency: number }[]>`
    select id, coalesce(concurrency, 1) as concurrency from runners
    where revoked_at is null and not suspended and stopped_at is null
      and ${runnerSilenceSeconds(sql, blind)} < greatest(${ttlSeconds}::float8, ${offlineAfterSeconds(sql)})`;
  return new Map(rows.map((r) => [r.id, r.concurrency]));
}
