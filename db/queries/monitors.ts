import type { Sql } from "../client.ts";

export interface MonitorRow {
  id: string;
  org_id: string;
  name: string;
  type: string;
  config: Record<string, unknown>;
  secrets_enc: string | null;
  interval_seconds: number;
  timeout_ms: number;
  regions: string[];
  runner_ids: string[];
  tags: string[];
  paused: boolean;
  suspended: boolean;
  status: string;
  status_changed_at: Date | null;
  last_checked_at: Date | null;
  last_duration_ms: number | null;
  heartbeat_token_enc: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface MonitorWrite {
  name: string;
  type: string;
  config: Record<string, unknown>;
  secretsEnc: string | null;
  intervalSeconds: number;
  timeoutMs: number;
  regions: string[];
  runnerIds: string[];
  tags: string[];
  paused: boolean;
}

/** The latest check's time and duration live in the narrow monitor_state row ingest writes (null before the first). */
const cols = (sql: Sql) => sql`
  id, org_id, name, type, config, secrets_enc, interval_seconds, timeout_ms, regions, runner_ids, tags, paused, suspended,
  status, status_changed_at,
  (select s.last_checked_at from monitor_state s where s.monitor_id = monitors.id) as last_checked_at,
  (select s.last_duration_ms from monitor_state s where s.monitor_id = monitors.id) as last_duration_ms,
  heartbeat_token_enc, created_at, updated_at`;

export async function insertMonitor(
  sql: Sql,
  orgId: string,
  id: string,
  m: MonitorWrite & { heartbeatTokenHash: Buffer | null; heartbeatTokenEnc: string | null },
): Promise<MonitorRow> {
  const [row] = await sql<MonitorRow[]>`
    insert into monitors (id, org_id, name, type, config, secrets_enc, interval_seconds, timeout_ms, regions, runner_ids, tags, paused,
                          heartbeat_token_hash, heartbeat_token_enc, status)
    values (${id}, ${orgId}, ${m.name}, ${m.type}, ${sql.json(m.config as never)}, ${m.secretsEnc}, ${m.intervalSeconds}, ${m.timeoutMs},
            ${m.regions}, ${m.runnerIds}, ${m.tags}, ${m.paused}, ${m.heartbeatTokenHash}, ${m.heartbeatTokenEnc}, 'pending')
    returning ${cols(sql)}`;
  return row!;
}

/** Many monitors in one statement (bulk create); answers in the order given. */
export async function insertMonitors(
  sql: Sql,
  orgId: string,
  ms: (MonitorWrite & { id: string; heartbeatTokenHash: Buffer | null; heartbeatTokenEnc: string | null })[],
): Promise<MonitorRow[]> {
  if (ms.length === 1) return [await insertMonitor(sql, orgId, ms[0]!.id, ms[0]!)];
  const rows = await sql<(MonitorRow & { ord: number })[]>`
    with input as (
      select * from jsonb_to_recordset(${sql.json(
        ms.map((m, ord) => ({
          ord,
          id: m.id,
          name: m.name,
          type: m.type,
          config: m.config,
          secrets_enc: m.secretsEnc,
          interval_seconds: m.intervalSeconds,
          timeout_ms: m.timeoutMs,
          regions: m.regions,
          runner_ids: m.runnerIds,
          tags: m.tags,
          paused: m.paused,
          heartbeat_token_hash: m.heartbeatTokenHash ? m.heartbeatTokenHash.toString("hex") : null,
          heartbeat_token_enc: m.heartbeatTokenEnc,
        })) as never,
      )}) as x(ord int, id text, name text, type text, config jsonb, secrets_enc text, interval_seconds int, timeout_ms int,
               regions text[], runner_ids text[], tags text[], paused boolean, heartbeat_token_hash text, heartbeat_token_enc text)
    ), inserted as (
      insert into monitors (id, org_id, name, type, config, secrets_enc, interval_seconds, timeout_ms, regions, runner_ids, tags, paused,
                            heartbeat_token_hash, heartbeat_token_enc, status)
      select id, ${orgId}, name, type, config, secrets_enc, interval_seconds, timeout_ms, regions, runner_ids, tags, paused,
             decode(heartbeat_token_hash, 'hex'), heartbeat_token_enc, 'pending'
      from input order by ord
      returning ${cols(sql)}
    )
    select inserted.*, input.ord from inserted join input using (id) order by input.ord`;
  return rows.map(({ ord: _ord, ...row }) => row as MonitorRow);
}

export async function findMonitor(sql: Sql, orgId: string, id: string): Promise<MonitorRow | undefined> {
  const [row] = await sql<MonitorRow[]>`select ${cols(sql)} from monitors where org_id = ${orgId} and id = ${id}`;
  return row;
}

/** Clears a heartbeat's stored deadline: a changed period, schedule or grace is re-planned by the next sweep. */
export async function updateMonitor(sql: Sql, orgId: string, id: string, m: MonitorWrite): Promise<MonitorRow | undefined> {
  const [row] = await sql<MonitorRow[]>`
    update monitors set name = ${m.name}, type = ${m.type}, config = ${sql.json(m.config as never)}, secrets_enc = ${m.secretsEnc},
      interval_seconds = ${m.intervalSeconds}, timeout_ms = ${m.timeoutMs}, regions = ${m.regions}, runner_ids = ${m.runnerIds},
      tags = ${m.tags}, paused = ${m.paused}, updated_at = now(), heartbeat_due_at = null
    where org_id = ${orgId} and id = ${id} returning ${cols(sql)}`;
  return row;
}

export async function deleteMonitors(sql: Sql, orgId: string, ids: string[]): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`delete from monitors where org_id = ${orgId} and id = any(${ids}) returning id`;
  return rows.map((r) => r.id);
}

export async function setPaused(sql: Sql, orgId: string, target: { ids?: string[]; tag?: string }, paused: boolean): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    update monitors set paused = ${paused}, updated_at = now()
    where org_id = ${orgId} and paused <> ${paused}
      and (${target.ids ?? null}::text[] is null or id = any(${target.ids ?? null}::text[]))
      and (${target.tag ?? null}::text is null or ${target.tag ?? null} = any(tags))
    returning id`;
  return rows.map((r) => r.id);
}

export async function idsMatching(sql: Sql, orgId: string, target: { ids?: string[]; tag?: string }): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id from monitors where org_id = ${orgId}
      and (${target.ids ?? null}::text[] is null or id = any(${target.ids ?? null}::text[]))
      and (${target.tag ?? null}::text is null or ${target.tag ?? null} = any(tags))`;
  return rows.map((r) => r.id);
}

export interface MonitorFilter {
  type?: string;
  status?: string;
  tag?: string;
  paused?: boolean;
  /** Suspended over the plan's quota (billing/suspension.ts). */
  suspended?: boolean;
  search?: string;
  sort?: MonitorSort;
  /** An overview bucket (monitorStateSql): up, down, degraded, paused or not_monitored. */
  state?: MonitorState;
}

export type MonitorState = "up" | "down" | "degraded" | "paused" | "not_monitored";

/**
 * The overview's buckets, each monitor in exactly one: paused first; then not monitored (suspended
 * by the plan, nowhere to run — no region and no runner, heartbeats aside — or no result yet);
 * down takes timeouts too.
 */
export const MONITOR_STATE_SQL = `case when paused then 'paused'
  when suspended or status = 'pending' or (type <> 'heartbeat' and cardinality(regions) = 0 and cardinality(runner_ids) = 0) then 'not_monitored'
  when status in ('down', 'timeout') then 'down' when status = 'degraded' then 'degraded' else 'up' end`;

/** List orders; each ends on id so pages never overlap. */
type MonitorSort = "created" | "name" | "status" | "response_time";
const ORDER: Record<MonitorSort, string> = {
  created: "created_at desc, id desc",
  name: "lower(name), id",
  // Worst first: problems, then pending, then up; paused last.
  status: "paused, case status when 'down' then 0 when 'timeout' then 1 when 'degraded' then 2 when 'pending' then 3 else 4 end, lower(name), id",
  // state_duration_ms: the joined monitor_state's last_duration_ms (one join, not a lookup per monitor, to sort thousands).
  response_time: "state_duration_ms desc nulls last, lower(name), id",
};

export async function listMonitors(sql: Sql, orgId: string, f: MonitorFilter, limit: number, offset: number): Promise<{ rows: MonitorRow[]; total: number }> {
  const where = sql`
    org_id = ${orgId}
    and (${f.type ?? null}::text is null or type = ${f.type ?? null})
    and (${f.status ?? null}::text is null or status = ${f.status ?? null})
    and (${f.tag ?? null}::text is null or ${f.tag ?? null} = any(tags))
    and (${f.paused ?? null}::boolean is null or paused = ${f.paused ?? null})
    and (${f.suspended ?? null}::boolean is null or suspended = ${f.suspended ?? null})
    and (${f.state ?? null}::text is null or ${sql.unsafe(MONITOR_STATE_SQL)} = ${f.state ?? null})
    and (${f.search ?? null}::text is null or name ilike ${"%" + (f.search ?? "").replace(/[\\%_]/g, (c) => "\\" + c) + "%"})`;
  const sort = f.sort ?? "created";
  const from =
    sort === "response_time"
      ? sql`monitors left join lateral (select s.last_duration_ms as state_duration_ms from monitor_state s where s.monitor_id = monitors.id) st on true`
      : sql`monitors`;
  const rows = await sql<MonitorRow[]>`select ${cols(sql)} from ${from} where ${where} order by ${sql.unsafe(ORDER[sort])} limit ${limit} offset ${offset}`;
  const [c] = await sql<{ n: number }[]>`select count(*)::int as n from monitors where ${where}`;
  return { rows, total: c!.n };
}

export interface TagGroupRow {
  tag: string;
  monitors: number;
  up: number;
  down: number;
  degraded: number;
  timeout: number;
  pending: number;
  paused: number;
}

export async function listTagGroups(sql: Sql, orgId: string, tag: string | null = null): Promise<TagGroupRow[]> {
  return sql<TagGroupRow[]>`
    select t.tag, count(*)::int as monitors,
      count(*) filter (where m.status = 'up' and not m.paused)::int as up,
      count(*) filter (where m.status = 'down' and not m.paused)::int as down,
      count(*) filter (where m.status = 'degraded' and not m.paused)::int as degraded,
      count(*) filter (where m.status = 'timeout' and not m.paused)::int as timeout,
      count(*) filter (where m.status = 'pending' and not m.paused)::int as pending,
      count(*) filter (where m.paused)::int as paused
    from monitors m cross join lateral unnest(m.tags) as t(tag)
    where m.org_id = ${orgId} and (${tag}::text is null or t.tag = ${tag})
    group by t.tag order by t.tag`;
}

export async function renameTag(sql: Sql, orgId: string, from: string, to: string): Promise<number> {
  const rows = await sql`
    update monitors set tags = array(select distinct unnest(array_replace(tags, ${from}, ${to}))), updated_at = now()
    where org_id = ${orgId} and ${from} = any(tags) returning id`;
  return rows.length;
}

export async function removeTag(sql: Sql, orgId: string, tag: string): Promise<number> {
  const rows = await sql`update monitors set tags = array_remove(tags, ${tag}), updated_at = now() where org_id = ${orgId} and ${tag} = any(tags) returning id`;
  return rows.length;
}

/** Which of these monitor ids still exist (results of deleted monitors are dropped at ingest). */
export async function existingMonitorIds(sql: Sql, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await sql<{ id: string }[]>`select id from monitors where id = any(${ids})`;
  return new Set(rows.map((r) => r.id));
}
