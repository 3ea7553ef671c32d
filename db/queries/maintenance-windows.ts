import type { Sql } from "../client.ts";

export interface MaintenanceWindowRow {
  id: string;
  org_id: string;
  name: string;
  description: string;
  starts_at: Date | null;
  ends_at: Date | null;
  rrule: string | null;
  cron: string | null;
  duration_minutes: number | null;
  timezone: string;
  monitor_ids: string[];
  tags: string[];
  pause_monitors: boolean;
  suppress_alerts: boolean;
  /** The key a config file (watchpost.yaml) gives the window; null when none did. */
  config_key?: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface MaintenanceWindowWrite {
  name: string;
  description: string;
  startsAt: Date | null;
  endsAt: Date | null;
  rrule: string | null;
  cron: string | null;
  durationMinutes: number | null;
  timezone: string;
  monitorIds: string[];
  tags: string[];
  pauseMonitors: boolean;
  suppressAlerts: boolean;
  configKey?: string | null;
}

const cols = (sql: Sql) => sql`
  id, org_id, name, description, starts_at, ends_at, rrule, cron, duration_minutes, timezone, monitor_ids, tags,
  pause_monitors, suppress_alerts, config_key, created_at, updated_at`;

export async function insertWindow(sql: Sql, orgId: string, id: string, w: MaintenanceWindowWrite): Promise<MaintenanceWindowRow> {
  const [row] = await sql<MaintenanceWindowRow[]>`
    insert into maintenance_windows (id, org_id, name, description, starts_at, ends_at, rrule, cron, duration_minutes, timezone,
                                     monitor_ids, tags, pause_monitors, suppress_alerts, config_key)
    values (${id}, ${orgId}, ${w.name}, ${w.description}, ${w.startsAt}, ${w.endsAt}, ${w.rrule}, ${w.cron}, ${w.durationMinutes},
            ${w.timezone}, ${w.monitorIds}, ${w.tags}, ${w.pauseMonitors}, ${w.suppressAlerts}, ${w.configKey ?? null})
    returning ${cols(sql)}`;
  return row!;
}

export async function updateWindow(sql: Sql, orgId: string, id: string, w: MaintenanceWindowWrite): Promise<MaintenanceWindowRow | undefined> {
  const [row] = await sql<MaintenanceWindowRow[]>`
    update maintenance_windows set name = ${w.name}, description = ${w.description}, starts_at = ${w.startsAt}, ends_at = ${w.endsAt},
      rrule = ${w.rrule}, cron = ${w.cron}, duration_minutes = ${w.durationMinutes}, timezone = ${w.timezone},
      monitor_ids = ${w.monitorIds}, tags = ${w.tags}, pause_monitors = ${w.pauseMonitors}, suppress_alerts = ${w.suppressAlerts},
      config_key = ${w.configKey ?? null}, updated_at = now()
    where org_id = ${orgId} and id = ${id} returning ${cols(sql)}`;
  return row;
}

/** Whether another window of the organisation already has this config key. */
export async function windowConfigKeyTaken(sql: Sql, orgId: string, key: string, exceptId: string | null): Promise<boolean> {
  const rows = await sql`select 1 from maintenance_windows where org_id = ${orgId} and config_key = ${key} and id is distinct from ${exceptId} limit 1`;
  return rows.length > 0;
}

export async function findWindow(sql: Sql, orgId: string, id: string): Promise<MaintenanceWindowRow | undefined> {
  const [row] = await sql<MaintenanceWindowRow[]>`select ${cols(sql)} from maintenance_windows where org_id = ${orgId} and id = ${id}`;
  return row;
}

export async function deleteWindow(sql: Sql, orgId: string, id: string): Promise<boolean> {
  const rows = await sql`delete from maintenance_windows where org_id = ${orgId} and id = ${id} returning id`;
  return rows.length > 0;
}

/** Every window of the organisation, newest first (windows per organisation are few; state filters run on top). */
export function listWindows(sql: Sql, orgId: string): Promise<MaintenanceWindowRow[]> {
  return sql<MaintenanceWindowRow[]>`select ${cols(sql)} from maintenance_windows where org_id = ${orgId} order by created_at desc, id desc`;
}

/** The organisation's windows that cover this monitor: by id, by one of its tags, or all monitors. */
export function windowsForMonitor(sql: Sql, orgId: string, monitorId: string, tags: string[]): Promise<MaintenanceWindowRow[]> {
  return sql<MaintenanceWindowRow[]>`
    select ${cols(sql)} from maintenance_windows
    where org_id = ${orgId}
      and (${monitorId} = any(monitor_ids) or tags && ${tags}::text[] or (cardinality(monitor_ids) = 0 and cardinality(tags) = 0))`;
}

/** Windows that pause monitors, for the scheduler: of one organisation, or of all when orgId is null. */
export function pausingWindows(sql: Sql, orgId: string | null): Promise<MaintenanceWindowRow[]> {
  return sql<MaintenanceWindowRow[]>`
    select ${cols(sql)} from maintenance_windows where pause_monitors and (${orgId}::text is null or org_id = ${orgId})`;
}

/** Which of `ids` are monitors of the organisation. */
export async function existingMonitorIds(sql: Sql, orgId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await sql<{ id: string }[]>`select id from monitors where org_id = ${orgId} and id = any(${ids})`;
  return new Set(rows.map((r) => r.id));
}
