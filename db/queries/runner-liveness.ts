import type { Sql } from "../client.ts";
import { type BlindSpan, FULL_VIEW } from "../../core/process/blind-time.ts";

export interface RunnerTransition {
  org_id: string;
  runner_id: string;
  name: string;
  last_seen_at: Date;
}

/** A runner is offline once no heartbeat came for 3 × its own interval (the rule GET /runners/:id/status shows), in seconds. */
export const offlineAfterSeconds = (sql: Sql) => sql`(coalesce(heartbeat_interval_ms, 30000) * 3 / 1000.0)`;
const offlineAfter = (sql: Sql) => sql`make_interval(secs => ${offlineAfterSeconds(sql)})`;

/**
 * Seconds since a runner's last heartbeat (null if it never sent one), less the time the judging process could not
 * see (`BlindSpan`: its stretches of failed reads; in the all-in-one, before it started; in the scaled mode, while no
 * API process was up). Heartbeats travel runner → API → PostgreSQL, so while the judge could not read the database,
 * or no API was running (the all-in-one restarting), no runner could be seen beating: that time is no evidence of
 * silence, and a live runner is seen again within seconds of the path coming back (it retries every few seconds).
 */
export const runnerSilenceSeconds = (sql: Sql, blind: BlindSpan) => {
  const ago = sql`extract(epoch from now() - last_seen_at)::float8`;
  if (blind.gaps.length === 0) return sql`(${ago})`;
  const froms = blind.gaps.map((g) => g.fromAgoS);
  const tos = blind.gaps.map((g) => g.toAgoS);
  return sql`(${ago} - (select coalesce(sum(greatest(0, least(${ago}, g.f) - g.t)), 0)
                        from unnest(${froms}::float8[], ${tos}::float8[]) as g(f, t)))`;
};

/**
 * Marks runners that went offline (silent, or stopped: ended their session) since the last sweep and writes one
 * `runner.offline` notification each, in one statement: concurrent sweeps cannot announce a runner twice. Runners that never
 * connected, revoked and suspended runners (they get no jobs) are left out. Silence is counted
 * without the sweeping process's blind time (`runnerSilenceSeconds`).
 */
export async function announceOfflineRunners(sql: Sql, blind: BlindSpan = FULL_VIEW): Promise<RunnerTransition[]> {
  return sql<RunnerTransition[]>`
    with went as (
      update runners set offline_notified_at = now()
      where offline_notified_at is null and revoked_at is null and not suspended
        and last_seen_at is not null and (stopped_at is not null or ${runnerSilenceSeconds(sql, blind)} >= ${offlineAfterSeconds(sql)})
      returning id, org_id, name, last_seen_at, stopped_at
    ), written as (
      insert into notifications (id, org_id, type, title, body, data)
      select new_notification_id(), org_id, 'runner.offline', 'Runner offline: ' || name,
             case when stopped_at is not null then name || ' stopped at ' || utc_text(stopped_at) || ' (it was shut down).'
                  else 'No heartbeat from ' || name || ' since ' || utc_text(last_seen_at) || '.' end
             || ' Its checks are recorded as unavailable until it is back.',
             jsonb_build_object('runner_id', id, 'last_seen_at', last_seen_at)
               || case when stopped_at is not null then jsonb_build_object('stopped_at', stopped_at) else '{}'::jsonb end
      from went
    )
    select org_id, id as runner_id, name, last_seen_at from went`;
}

/** The other direction: runners announced offline that heartbeat again get one `runner.online` notification. */
export async function announceRecoveredRunners(sql: Sql): Promise<RunnerTransition[]> {
  return sql<RunnerTransition[]>`
    with back as (
      update runners set offline_notified_at = null
      where offline_notified_at is not null and revoked_at is null and stopped_at is null
        and last_seen_at > now() - ${offlineAfter(sql)}
      returning id, org_id, name, last_seen_at
    ), written as (
      insert into notifications (id, org_id, type, title, body, data)
      select new_notification_id(), org_id, 'runner.online', 'Runner back online: ' || name,
             name || ' is sending heartbeats again.', jsonb_build_object('runner_id', id, 'last_seen_at', last_seen_at)
      from back
    )
    select org_id, id as runner_id, name, last_seen_at from back`;
}

/** Runners of every organisation by state, for the API's fleet gauges. */
export async function runnerCountsByStatus(sql: Sql): Promise<{ status: string; n: number }[]> {
  return sql<{ status: string; n: number }[]>`
    select case
             when revoked_at is not null then 'revoked'
             when suspended then 'suspended'
             when last_seen_at is null then 'never_connected'
             when stopped_at is null and last_seen_at > now() - ${offlineAfter(sql)} then 'online'
             else 'offline'
           end as status,
           count(*)::int as n
    from runners group by 1`;
}
