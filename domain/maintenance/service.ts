import type { Actor } from "../access/actor.ts";
import type { Sql } from "../../db/client.ts";
import { conflict, notFound, validationError, type ValidationIssue } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import {
  deleteWindow,
  existingMonitorIds,
  findWindow,
  insertWindow,
  listWindows,
  type MaintenanceWindowRow,
  type MaintenanceWindowWrite,
  updateWindow,
  windowConfigKeyTaken,
} from "../../db/queries/maintenance-windows.ts";
import { parseCron, parseRrule, RecurrenceError } from "../../schemas/maintenance/recurrence.ts";
import { windowStateAt } from "./window.ts";
import { isValidTimeZone } from "../../schemas/maintenance/zoned-time.ts";

export interface WindowInput {
  name: string;
  description?: string;
  starts_at?: string | null;
  ends_at?: string | null;
  rrule?: string | null;
  cron?: string | null;
  duration_minutes?: number | null;
  timezone?: string;
  monitor_ids?: string[];
  tags?: string[];
  pause_monitors?: boolean;
  suppress_alerts?: boolean;
  /** A config file's stable key for the window (null clears it; unique in the organisation). */
  key?: string | null;
}

export type WindowState = "active" | "upcoming" | "ended";

interface Ctx {
  sql: Sql;
  actor: Actor;
  /** Injectable for tests; default Date.now. */
  now?: () => number;
}

const uniq = (xs: string[]) => [...new Set(xs.map((x) => x.trim()).filter(Boolean))];
const toDate = (s: string | null | undefined) => (s ? new Date(s) : null);

/**
 * Checks one complete set of fields (after a PATCH is merged) and builds the row. `stored` are the
 * window's monitor ids before the edit: one deleted since stays (dropping it could leave the window
 * naming no monitor, i.e. covering all), so only ids the edit adds must exist.
 */
async function prepare(ctx: Ctx, input: Required<WindowInput>, exceptId: string | null = null, stored: readonly string[] = []): Promise<MaintenanceWindowWrite> {
  if (input.key && (await windowConfigKeyTaken(ctx.sql, ctx.actor.orgId, input.key, exceptId))) throw conflict(`Another maintenance window has the key "${input.key}"`, { key: input.key });
  const issues: ValidationIssue[] = [];
  const startsAt = toDate(input.starts_at);
  const endsAt = toDate(input.ends_at);
  const rrule = input.rrule?.trim() || null;
  const cron = input.cron?.trim() || null;
  if (!isValidTimeZone(input.timezone)) issues.push({ path: "body.timezone", message: `Unknown time zone "${input.timezone}"; use an IANA name such as Europe/Berlin` });
  if (rrule && cron) issues.push({ path: "body.cron", message: "Give rrule or cron, not both" });
  const recurring = Boolean(rrule || cron);
  if (recurring) {
    if (input.duration_minutes === null) issues.push({ path: "body.duration_minutes", message: "A recurring window needs duration_minutes" });
    if (startsAt && endsAt && endsAt <= startsAt) issues.push({ path: "body.ends_at", message: "ends_at must be after starts_at" });
  } else {
    if (!startsAt) issues.push({ path: "body.starts_at", message: "A one-off window needs starts_at (or give rrule or cron)" });
    if (!endsAt) issues.push({ path: "body.ends_at", message: "A one-off window needs ends_at" });
    if (startsAt && endsAt && endsAt <= startsAt) issues.push({ path: "body.ends_at", message: "ends_at must be after starts_at" });
    if (input.duration_minutes !== null) issues.push({ path: "body.duration_minutes", message: "duration_minutes applies to recurring windows only" });
  }
  if (issues.length === 0) {
    try {
      if (rrule) parseRrule(rrule);
      if (cron) parseCron(cron, input.timezone);
    } catch (err) {
      if (!(err instanceof RecurrenceError)) throw err;
      issues.push({ path: rrule ? "body.rrule" : "body.cron", message: err.message });
    }
  }
  const monitorIds = uniq(input.monitor_ids);
  const known = await existingMonitorIds(ctx.sql, ctx.actor.orgId, monitorIds);
  const unknown = monitorIds.filter((id) => !known.has(id) && !stored.includes(id));
  if (unknown.length > 0) issues.push({ path: "body.monitor_ids", message: `Unknown monitor(s): ${unknown.join(", ")}` });
  if (issues.length > 0) throw validationError(issues);
  return {
    name: input.name,
    description: input.description,
    // A recurrence needs a fixed first start (its DTSTART); it defaults to the moment of creation.
    startsAt: startsAt ?? (rrule ? new Date(Math.floor((ctx.now?.() ?? Date.now()) / 60_000) * 60_000) : null),
    endsAt,
    rrule,
    cron,
    durationMinutes: recurring ? input.duration_minutes : null,
    timezone: input.timezone,
    monitorIds,
    tags: uniq(input.tags),
    pauseMonitors: input.pause_monitors,
    suppressAlerts: input.suppress_alerts,
    configKey: input.key,
  };
}

const DEFAULTS = {
  description: "",
  starts_at: null,
  ends_at: null,
  rrule: null,
  cron: null,
  duration_minutes: null,
  timezone: "UTC",
  monitor_ids: [] as string[],
  tags: [] as string[],
  pause_monitors: false,
  suppress_alerts: true,
  key: null,
} satisfies Omit<Required<WindowInput>, "name">;

export async function createWindow(ctx: Ctx, input: WindowInput): Promise<MaintenanceWindowRow> {
  const write = await prepare(ctx, { ...DEFAULTS, ...input });
  return insertWindow(ctx.sql, ctx.actor.orgId, newId("mw"), write);
}

export async function getWindow({ sql, actor }: Ctx, id: string): Promise<MaintenanceWindowRow> {
  const row = await findWindow(sql, actor.orgId, id);
  if (!row) throw notFound("Maintenance window");
  return row;
}

/** PATCH: fields left out keep their value; send null to clear starts_at, ends_at, rrule, cron or duration_minutes. */
export async function patchWindow(ctx: Ctx, id: string, patch: Partial<WindowInput>): Promise<MaintenanceWindowRow> {
  const cur = await getWindow(ctx, id);
  const current: Required<WindowInput> = {
    name: cur.name,
    description: cur.description,
    starts_at: cur.starts_at?.toISOString() ?? null,
    ends_at: cur.ends_at?.toISOString() ?? null,
    rrule: cur.rrule,
    cron: cur.cron,
    duration_minutes: cur.duration_minutes,
    timezone: cur.timezone,
    monitor_ids: cur.monitor_ids,
    tags: cur.tags,
    pause_monitors: cur.pause_monitors,
    suppress_alerts: cur.suppress_alerts,
    key: cur.config_key ?? null,
  };
  const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
  const row = await updateWindow(ctx.sql, ctx.actor.orgId, id, await prepare(ctx, { ...current, ...defined, ...(patch.key === null ? { key: null } : {}) }, id, cur.monitor_ids));
  if (!row) throw notFound("Maintenance window");
  return row;
}

export async function removeWindow({ sql, actor }: Ctx, id: string): Promise<void> {
  if (!(await deleteWindow(sql, actor.orgId, id))) throw notFound("Maintenance window");
}

export function windowStateNow(w: MaintenanceWindowRow, now: number): { state: WindowState; currentEndsAt: number | null; nextStartsAt: number | null } {
  const s = windowStateAt(w, now);
  if (s.active) return { state: "active", currentEndsAt: Number.isFinite(s.until) ? s.until : null, nextStartsAt: null };
  return { state: s.occurrenceStart === null ? "ended" : "upcoming", currentEndsAt: null, nextStartsAt: s.occurrenceStart };
}

/** The organisation's windows, newest first, optionally only those active now or still to come. */
export async function listOrgWindows(ctx: Ctx, state: WindowState | undefined, limit: number, offset: number) {
  const now = ctx.now?.() ?? Date.now();
  const rows = await listWindows(ctx.sql, ctx.actor.orgId);
  const matching = state ? rows.filter((w) => windowStateNow(w, now).state === state) : rows;
  return { rows: matching.slice(offset, offset + limit), total: matching.length };
}
