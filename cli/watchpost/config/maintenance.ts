import { type ApiClient, allPages } from "../client.ts";
import { CliError } from "../errors.ts";
import type { DesiredWindow } from "./load.ts";
import type { RefMaps } from "./rules.ts";

/** A maintenance window as the API shows it. */
export interface Window {
  id: string;
  name: string;
  description: string;
  starts_at: string | null;
  ends_at: string | null;
  rrule: string | null;
  cron: string | null;
  duration_minutes: number | null;
  timezone: string;
  monitor_ids: string[];
  tags: string[];
  pause_monitors: boolean;
  suppress_alerts: boolean;
  key: string | null;
  created_at: string;
}

export async function listWindows(client: ApiClient): Promise<Window[]> {
  return allPages((page) => client.GET("/api/v1/maintenance-windows", { params: { query: { page, limit: 100 } } })) as Promise<Window[]>;
}

const iso = (v: string | null | undefined) => (v ? new Date(v).toISOString() : null);

/**
 * The window in the file's form with the API's defaults spelled out. starts_at and ends_at count only when the
 * file gives them (a recurring window without starts_at starts when it is created).
 */
export function fullWindow(d: DesiredWindow) {
  return {
    name: d.name,
    description: d.description ?? "",
    ...(d.starts_at !== undefined ? { starts_at: iso(d.starts_at) } : {}),
    ...(d.ends_at !== undefined ? { ends_at: iso(d.ends_at) } : {}),
    rrule: d.rrule ?? null,
    cron: d.cron ?? null,
    duration_minutes: d.rrule || d.cron ? (d.duration_minutes ?? null) : null,
    timezone: d.timezone ?? "UTC",
    monitors: [...(d.monitors ?? [])].sort(),
    tags: [...(d.tags ?? [])].sort(),
    pause_monitors: d.pause_monitors ?? false,
    suppress_alerts: d.suppress_alerts ?? true,
  };
}

/** A stored window in the file's form (monitor ids as keys), holding the fields `want` holds. */
export function windowAsFile(w: Window, refs: RefMaps, want: ReturnType<typeof fullWindow>) {
  const keyOf = new Map([...refs.monitorId].map(([k, id]) => [id, k]));
  return {
    name: w.name,
    description: w.description,
    ...("starts_at" in want ? { starts_at: w.starts_at } : {}),
    ...("ends_at" in want ? { ends_at: w.ends_at } : {}),
    rrule: w.rrule,
    cron: w.cron,
    duration_minutes: w.duration_minutes,
    timezone: w.timezone,
    monitors: w.monitor_ids.map((id) => keyOf.get(id) ?? `id:${id}`).sort(),
    tags: [...w.tags].sort(),
    pause_monitors: w.pause_monitors,
    suppress_alerts: w.suppress_alerts,
  };
}

/** The API body: monitor keys resolved to ids (after creations). */
export function windowBody(d: DesiredWindow, refs: RefMaps) {
  const { monitors, ...rest } = fullWindow(d);
  const monitor_ids = monitors.map((k) => {
    const id = refs.monitorId.get(k);
    if (!id) throw new CliError(`Maintenance window ${d.key}: no monitor with key "${k}"`, "INVALID_CONFIG");
    return id;
  });
  return { ...rest, monitor_ids, key: d.key };
}
