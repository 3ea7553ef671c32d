import type { Sql } from "../client.ts";

export interface RegionLoadRow {
  region: string;
  overloadedSince: number | null;
  lagSeconds: number;
  waiting: number;
}

/** The scheduler leader's current view of each region's load (one row per region it publishes to). */
export async function writeRegionLoads(sql: Sql, loads: readonly RegionLoadRow[]): Promise<void> {
  if (loads.length === 0) return;
  const rows = loads.map((l) => ({
    region: l.region,
    overloaded_since: l.overloadedSince === null ? null : new Date(l.overloadedSince).toISOString(),
    lag_seconds: l.lagSeconds,
    waiting: l.waiting,
  }));
  await sql`
    insert into region_schedule_state (region, overloaded_since, lag_seconds, waiting, updated_at)
    select region, overloaded_since, lag_seconds, waiting, now()
    from jsonb_to_recordset(${sql.json(rows as never)}) as x(region text, overloaded_since timestamptz, lag_seconds real, waiting int)
    on conflict (region) do update set overloaded_since = excluded.overloaded_since, lag_seconds = excluded.lag_seconds,
      waiting = excluded.waiting, updated_at = now()`;
}

export interface RegionScheduleState {
  overloaded_since: Date | null;
  lag_seconds: number;
}

/**
 * Each region's load as last written by a scheduler leader within `freshSeconds`; an older row (no leader
 * writing: stopped, or a standby taking over) says nothing.
 */
export async function regionScheduleStates(sql: Sql, freshSeconds: number): Promise<Map<string, RegionScheduleState>> {
  const rows = await sql<(RegionScheduleState & { region: string })[]>`
    select region, overloaded_since, lag_seconds::float8 as lag_seconds from region_schedule_state
    where updated_at > now() - make_interval(secs => ${freshSeconds})`;
  return new Map(rows.map((r) => [r.region, { overloaded_since: r.overloaded_since, lag_seconds: r.lag_seconds }]));
}
