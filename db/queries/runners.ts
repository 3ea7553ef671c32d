import type { Sql } from "../client.ts";
import { type BlindSpan, FULL_VIEW } from "../../core/process/blind-time.ts";
import { offlineAfterSeconds, runnerSilenceSeconds } from "./runner-liveness.ts";

export interface RunnerRow {
  id: string;
  org_id: string;
  name: string;
  location_label: string | null;
  reported_name: string | null;
  region: string | null;
  version: string | null;
  browsers: string[];
  concurrency: number | null;
  heartbeat_interval_ms: number | null;
  encrypted: boolean | null;
  in_flight: number;
  last_seen_at: Date | null;
  last_check_at: Date | null;
  /** Set when the runner ended its session on a graceful stop: offline from then on, until it opens a new one. */
  stopped_at: Date | null;
  suspended: boolean;
  revoked_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const cols = (sql: Sql) => sql`
  id, org_id, name, location_label, reported_name, region, version, browsers, concurrency, heartbeat_interval_ms, encrypted,
  in_flight, last_seen_at, last_check_at, stopped_at, suspended, revoked_at, created_at, updated_at`;

export async function insertRunner(sql: Sql, orgId: string, r: { id: string; name: string; locationLabel: string | null; tokenHash: Buffer }): Promise<RunnerRow> {
  const [row] = await sql<RunnerRow[]>`
    insert into runners (id, org_id, name, location_label, token_hash)
    values (${r.id}, ${orgId}, ${r.name}, ${r.locationLabel}, ${r.tokenHash})
    returning ${cols(sql)}`;
  return row!;
}

export async function findRunner(sql: Sql, orgId: string, id: string): Promise<RunnerRow | undefined> {
  const [row] = await sql<RunnerRow[]>`select ${cols(sql)} from runners where org_id = ${orgId} and id = ${id}`;
  return row;
}

export async function listRunners(sql: Sql, orgId: string, limit: number, offset: number): Promise<{ rows: RunnerRow[]; total: number }> {
  const rows = await sql<RunnerRow[]>`
    select ${cols(sql)} from runners where org_id = ${orgId} order by created_at desc, id desc limit ${limit} offset ${offset}`;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from runners where org_id = ${orgId}`;
  return { rows, total: count!.n };
}

/** Which of `ids` are this organisation's runners and not revoked. */
export async function liveRunnerIds(sql: Sql, orgId: string, ids: string[]): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`select id from runners where org_id = ${orgId} and id = any(${ids}) and revoked_at is null`;
  return rows.map((r) => r.id);
}

export async function updateRunner(sql: Sql, orgId: string, id: string, patch: { name?: string; locationLabel?: string | null }): Promise<RunnerRow | undefined> {
  const [row] = await sql<RunnerRow[]>`
    update runners set
      name = coalesce(${patch.name ?? null}, name),
      location_label = case when ${patch.locationLabel !== undefined} then ${patch.locationLabel ?? null} else location_label end,
      updated_at = now()
    where org_id = ${orgId} and id = ${id}
    returning ${cols(sql)}`;
  return row;
}

/** Marks the runner revoked (idempotent) and drops its sessions; returns the row, or undefined when unknown. */
export async function revokeRunner(sql: Sql, orgId: string, id: string): Promise<RunnerRow | undefined> {
  const [row] = await sql<RunnerRow[]>`
    update runners set revoked_at = coalesce(revoked_at, now()), updated_at = now()
    where org_id = ${orgId} and id = ${id}
    returning ${cols(sql)}`;
  if (row) await sql`delete from runner_sessions where runner_id = ${id}`;
  return row;
}

/** Takes a revoked runner off every monitor of the organisation; returns the monitors left with no region and no runner. */
export async function removeRunnerFromMonitors(sql: Sql, orgId: string, runnerId: string): Promise<{ id: string }[]> {
  return sql<{ id: string }[]>`
    update monitors set runner_ids = array_remove(runner_ids, ${runnerId}), updated_at = now()
    where org_id = ${orgId} and ${runnerId} = any(runner_ids)
    returning id, (cardinality(regions) = 0 and cardinality(runner_ids) = 0) as stranded`.then((rows) =>
    (rows as unknown as { id: string; stranded: boolean }[]).filter((r) => r.stranded).map(({ id }) => ({ id })),
  );
}

/** The live runner holding this token; revoked runners never match. */
export async function findRunnerByTokenHash(sql: Sql, tokenHash: Buffer): Promise<RunnerRow | undefined> {
  const [row] = await sql<RunnerRow[]>`select ${cols(sql)} from runners where token_hash = ${tokenHash} and revoked_at is null`;
  return row;
}

export interface RunnerBeat {
  reportedName: string;
  region: string;
  version: string;
  browsers: string[];
  concurrency: number;
  heartbeatIntervalMs: number;
  inFlight: number;
}

/**
 * last_seen_at is the database's clock so API processes with skewed clocks agree. A beat through a live session
 * (`sessionId`) clears a graceful stop; one that raced the end of its own session (already deleted) does not.
 */
export async function recordRunnerBeat(sql: Sql, id: string, sessionId: string, b: RunnerBeat, encrypted?: boolean): Promise<void> {
  await sql`
    update runners set reported_name = ${b.reportedName}, region = ${b.region}, version = ${b.version}, browsers = ${b.browsers},
      concurrency = ${b.concurrency}, heartbeat_interval_ms = ${b.heartbeatIntervalMs}, in_flight = ${b.inFlight},
      encrypted = coalesce(${encrypted ?? null}, encrypted), last_seen_at = now(),
      stopped_at = case when exists (select 1 from runner_sessions where id = ${sessionId}) then null else stopped_at end
    where id = ${id} and revoked_at is null`;
}

/** A graceful stop: the session is deleted and the runner marked stopped (offline at once), holding nothing. */
export async function endRunnerSession(sql: Sql, runnerId: string, sessionId: string): Promise<void> {
  await sql`
    with gone as (delete from runner_sessions where id = ${sessionId} and runner_id = ${runnerId} returning id)
    update runners set stopped_at = now(), in_flight = 0 where id = ${runnerId} and revoked_at is null`;
}

export async function touchRunner(sql: Sql, id: string, checked: boolean): Promise<void> {
  if (checked) await sql`update runners set last_seen_at = now(), last_check_at = now() where id = ${id}`;
  else await sql`update runners set last_seen_at = now() where id = ${id}`;
}

export interface RunnerSessionRow {
  id: string;
  runner_id: string;
  org_id: string;
  encrypted: boolean;
  key_enc: string | null;
  expires_at: Date;
}

export async function insertRunnerSession(
  sql: Sql,
  s: { id: string; runnerId: string; orgId: string; encrypted: boolean; keyEnc: string | null; ttlSeconds: number },
): Promise<void> {
  await sql`
    insert into runner_sessions (id, runner_id, org_id, encrypted, key_enc, expires_at)
    values (${s.id}, ${s.runnerId}, ${s.orgId}, ${s.encrypted}, ${s.keyEnc}, now() + make_interval(secs => ${s.ttlSeconds}))`;
  // Expired sessions of earlier processes, and all but the newest few: a runner uses one at a time.
  await sql`
    delete from runner_sessions where runner_id = ${s.runnerId} and (expires_at < now() or id not in (
      select id from runner_sessions where runner_id = ${s.runnerId} order by created_at desc, id desc limit 5))`;
}

/** A live session of this runner; sliding expiry is renewed by `extendRunnerSession`. */
export async function findRunnerSession(sql: Sql, runnerId: string, id: string): Promise<RunnerSessionRow | undefined> {
  const [row] = await sql<RunnerSessionRow[]>`
    select id, runner_id, org_id, encrypted, key_enc, expires_at from runner_sessions
    where id = ${id} and runner_id = ${runnerId} and expires_at > now()`;
  return row;
}

async function extendRunnerSession(sql: Sql, id: string, ttlSeconds: number): Promise<void> {
  await sql`update runner_sessions set expires_at = now() + make_interval(secs => ${ttlSeconds}) where id = ${id}`;
}

/**
 * Anti-replay for runner→server payloads, atomically: accepts `seq` when above the highest
 * seen (sliding the 64-wide window) or inside the window and not yet seen. False = replay.
 */
export async function acceptInboundSeq(sql: Sql, sessionId: string, seq: number): Promise<boolean> {
  const rows = await sql`
    update runner_sessions set
      seq_in_window = case
        when ${seq}::bigint > seq_in_max then
          case when ${seq}::bigint - seq_in_max >= 64 then 1::bigint else (seq_in_window << (${seq}::bigint - seq_in_max)::int) | 1::bigint end
        else seq_in_window | (1::bigint << (seq_in_max - ${seq}::bigint)::int)
      end,
      seq_in_max = greatest(seq_in_max, ${seq}::bigint)
    where id = ${sessionId} and ${seq}::bigint > 0 and (
      ${seq}::bigint > seq_in_max
      or (seq_in_max - ${seq}::bigint < 64 and seq_in_window & (1::bigint << (seq_in_max - ${seq}::bigint)::int) = 0)
    )
    returning id`;
  return rows.length === 1;
}

/** The next server→runner seq of the session; null when the session is gone (revoked, evicted). */
export async function nextOutboundSeq(sql: Sql, sessionId: string): Promise<number | null> {
  const [row] = await sql<{ seq: number }[]>`update runner_sessions set seq_out = seq_out + 1 where id = ${sessionId} returning seq_out as seq`;
  return row ? Number(row.seq) : null;
}

type StaleRunnerState = "revoked" | "suspended" | "stopped" | "offline";

/**
 * Runners whose queue may hold jobs nobody will run: revoked, suspended, stopped (ended their session), or offline (no heartbeat
 * within 3 × their interval, at least `ttlSeconds`, not counting what the sweeping process could not
 * see: `runnerSilenceSeconds`). Only those active within the jobs' 1 h lifetime can still have any.
 */
export async function staleRunnerQueues(sql: Sql, ttlSeconds: number, blind: BlindSpan = FULL_VIEW): Promise<{ id: string; state: StaleRunnerState }[]> {
  return sql<{ id: string; state: StaleRunnerState }[]>`
    select id, case when revoked_at is not null then 'revoked' when suspended then 'suspended' when stopped_at is not null then 'stopped' else 'offline' end as state
    from runners
    where last_seen_at > now() - interval '2 hours'
      and (revoked_at is not null or suspended or stopped_at is not null
        or ${runnerSilenceSeconds(sql, blind)} >= greatest(${ttlSeconds}::float8, ${offlineAfterSeconds(sql)}))`;
}

/** For each runner: whether it stopped on purpose or was revoked (`ended`), and its live sessions. Unknown runners are absent. */
export async function runnerSessionsState(sql: Sql, runnerIds: string[]): Promise<Map<string, { ended: boolean; sessions: string[] }>> {
  const rows = await sql<{ id: string; ended: boolean; sessions: string[] }[]>`
    select r.id, (r.stopped_at is not null or r.revoked_at is not null) as ended,
      array(select s.id from runner_sessions s where s.runner_id = r.id and s.expires_at > now()) as sessions
    from runners r where r.id = any(${runnerIds})`;
  return new Map(rows.map((r) => [r.id, { ended: r.ended, sessions: r.sessions }]));
}
