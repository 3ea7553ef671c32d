import type { Sql } from "../client.ts";

export interface HeartbeatMonitorRow {
  id: string;
  org_id: string;
  paused: boolean;
  suspended: boolean;
  period_seconds: number;
  grace_seconds: number;
  last_ping_at: Date | null;
  created_at: Date;
}

/** Records a ping and returns the monitor it belongs to (by the hash of its token). */
export async function recordPing(sql: Sql, tokenHash: Buffer, at: Date): Promise<HeartbeatMonitorRow | undefined> {
  const [row] = await sql<HeartbeatMonitorRow[]>`
    update monitors set last_ping_at = ${at}
    where heartbeat_token_hash = ${tokenHash} and type = 'heartbeat'
    returning id, org_id, paused, suspended, (config->>'period_seconds')::int as period_seconds,
      coalesce((config->>'grace_seconds')::int, 0) as grace_seconds, last_ping_at, created_at`;
  return row;
}

/** Active heartbeat monitors whose period plus grace has run out since their last ping (or creation). */
export async function overdueHeartbeats(sql: Sql, now: Date, limit = 1000): Promise<HeartbeatMonitorRow[]> {
  return sql<HeartbeatMonitorRow[]>`
    select id, org_id, paused, suspended, (config->>'period_seconds')::int as period_seconds,
      coalesce((config->>'grace_seconds')::int, 0) as grace_seconds, last_ping_at, created_at
    from monitors
    where type = 'heartbeat' and not paused and not suspended
      and coalesce(last_ping_at, created_at)
          + make_interval(secs => (config->>'period_seconds')::int + coalesce((config->>'grace_seconds')::int, 0)) <= ${now}
    order by coalesce(last_ping_at, created_at) limit ${limit}`;
}
