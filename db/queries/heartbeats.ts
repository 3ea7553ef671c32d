import type { Sql } from "../client.ts";

export interface HeartbeatMonitorRow {
  id: string;
  org_id: string;
  paused: boolean;
  suspended: boolean;
  config: Record<string, unknown>;
  last_ping_at: Date | null;
  due_at: Date | null;
  started_at: Date | null;
  start_body: string | null;
  created_at: Date;
}

const cols = (sql: Sql) => sql`
  id, org_id, paused, suspended, config, last_ping_at, heartbeat_due_at as due_at, heartbeat_started_at as started_at,
  heartbeat_start_body as start_body, created_at`;

/** The heartbeat monitor a token belongs to (by the hash of its token), locked until the transaction ends. */
export async function lockHeartbeatByToken(sql: Sql, tokenHash: Buffer): Promise<HeartbeatMonitorRow | undefined> {
  const [row] = await sql<HeartbeatMonitorRow[]>`
    select ${cols(sql)} from monitors where heartbeat_token_hash = ${tokenHash} and type = 'heartbeat' for update`;
  return row;
}

/** A success or fail ping: the ping time, the next deadline, and the run's start cleared. */
export async function recordPing(sql: Sql, id: string, at: Date, dueAt: Date | null): Promise<void> {
  await sql`
    update monitors set last_ping_at = ${at}, heartbeat_due_at = ${dueAt}, heartbeat_started_at = null, heartbeat_start_body = null
    where id = ${id}`;
}

/** The heartbeat monitors among `ids`, with their timing: resuming them starts a fresh wait (domain/monitors/heartbeat.ts). */
export async function heartbeatConfigs(sql: Sql, ids: string[]): Promise<{ id: string; config: unknown }[]> {
  if (ids.length === 0) return [];
  return sql<{ id: string; config: unknown }[]>`select id, config from monitors where id = any(${ids}) and type = 'heartbeat'`;
}

/** Sets a heartbeat monitor's deadline outright (a resume: the runs missed while paused are not owed). */
export async function setHeartbeatDeadline(sql: Sql, id: string, dueAt: Date | null): Promise<void> {
  await sql`update monitors set heartbeat_due_at = ${dueAt} where id = ${id}`;
}

/** A /start signal: the run's start time and body, kept until the next success or fail ping. */
export async function recordStart(sql: Sql, id: string, at: Date, body: string | null): Promise<void> {
  await sql`update monitors set heartbeat_started_at = ${at}, heartbeat_start_body = ${body} where id = ${id}`;
}

/** Active heartbeat monitors whose deadline has passed, or whose deadline is not computed yet. */
export async function overdueHeartbeats(sql: Sql, now: Date, limit = 1000): Promise<HeartbeatMonitorRow[]> {
  return sql<HeartbeatMonitorRow[]>`
    select ${cols(sql)} from monitors
    where type = 'heartbeat' and not paused and not suspended and (heartbeat_due_at is null or heartbeat_due_at <= ${now})
    order by heartbeat_due_at nulls first limit ${limit}`;
}

/**
 * Moves a monitor's deadline on after a sweep, only if nobody moved it meanwhile (a ping between the
 * sweep's read and this write keeps the ping's deadline).
 */
export async function advanceDeadline(sql: Sql, id: string, seen: Date | null, next: Date | null): Promise<void> {
  await sql`update monitors set heartbeat_due_at = ${next} where id = ${id} and heartbeat_due_at is not distinct from ${seen}`;
}
