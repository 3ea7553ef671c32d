import type { Actor } from "../access/actor.ts";
import type { Sql } from "../../db/client.ts";
import { notFound, validationError } from "../../core/errors.ts";
import { findMonitor, type MonitorRow } from "../../db/queries/monitors.ts";
import { type CheckType, dataFieldNames } from "../../schemas/check-types.ts";
import { getResult, listResults, streamResults, type ResultPage } from "./checks.ts";
import { encodeExport, type ExportFormat } from "./export.ts";
import { withAllFields } from "./result-data.ts";
import { getRetention, type Retention } from "./retention.ts";
import { DAY_MS, HOUR_MS, type BucketSize } from "./segments.ts";
import type { CheckResultRow, ResultStatus } from "./types.ts";
import { aggregates, uptime, uptimeWindows, type AggregateBucket, type Uptime, type UptimeWindow } from "./uptime.ts";

/**
 * What the results routes call: each function first finds the monitor in the caller's
 * organisation (404 otherwise, also for another organisation's monitor), then reads.
 */
interface Ctx {
  sql: Sql;
  actor: Actor;
  /** The current time; tests pass a fixed one. */
  now?: Date;
}

export interface ResultFilters {
  status?: ResultStatus;
  location?: string;
  from?: Date;
  to?: Date;
}

async function ownMonitor(ctx: Ctx, monitorId: string): Promise<MonitorRow> {
  const monitor = await findMonitor(ctx.sql, ctx.actor.orgId, monitorId);
  if (!monitor) throw notFound("Monitor");
  return monitor;
}

/**
 * [from, to) of a results read: `to` defaults to now, `from` to the start of the retention window
 * (everything still kept). A `to` before the retention window with no `from` reads an empty range.
 */
async function resultRange(ctx: Ctx, f: ResultFilters): Promise<{ from: Date; to: Date }> {
  const now = ctx.now ?? new Date();
  const to = f.to ?? now;
  if (f.from) return { from: f.from, to };
  const retention = await getRetention(ctx.sql, ctx.actor.orgId, now);
  const oldest = retention?.oldest_kept.getTime() ?? to.getTime() - 90 * DAY_MS;
  return { from: new Date(Math.min(oldest, to.getTime() - 1)), to };
}

/** GET /monitors/:id/checks: a page of results, newest first. */
export async function listMonitorChecks(ctx: Ctx, monitorId: string, f: ResultFilters & { page: number; limit: number }): Promise<ResultPage> {
  const monitor = await ownMonitor(ctx, monitorId);
  const range = await resultRange(ctx, f);
  const page = await listResults(ctx.sql, ctx.actor.orgId, monitorId, { ...range, status: f.status, location: f.location, limit: f.limit, offset: (f.page - 1) * f.limit });
  return { ...page, items: page.items.map(withAllFields(dataFieldNames(monitor.type as CheckType))) };
}

/** GET /monitors/:id/checks/:checkId, by result id (`chk_…`) or by the job id that produced it. */
export async function getMonitorCheck(ctx: Ctx, monitorId: string, checkId: string): Promise<CheckResultRow> {
  const monitor = await ownMonitor(ctx, monitorId);
  const row = await getResult(ctx.sql, ctx.actor.orgId, monitorId, checkId);
  if (!row) throw notFound("Check result");
  return withAllFields(dataFieldNames(monitor.type as CheckType))(row);
}

export interface ResultExport {
  body: ReadableStream<Uint8Array>;
  contentType: string;
  filename: string;
}

/** GET /monitors/:id/checks/export: every matching result in due-time order, streamed through a cursor. */
export async function exportMonitorChecks(
  ctx: Ctx,
  monitorId: string,
  f: ResultFilters & { format: ExportFormat; onError?: (err: unknown) => void },
): Promise<ResultExport> {
  const monitor = await ownMonitor(ctx, monitorId);
  const range = await resultRange(ctx, f);
  const batches = streamResults(ctx.sql, ctx.actor.orgId, monitorId, { ...range, status: f.status, location: f.location });
  const body = await encodeExport(batches, f.format, dataFieldNames(monitor.type as CheckType), f.onError);
  const stamp = (d: Date) => d.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  return {
    body,
    contentType: f.format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
    filename: `${monitorId}-checks-${stamp(range.from)}-${stamp(range.to)}.${f.format}`,
  };
}

export interface MonitorUptime {
  windows: Record<UptimeWindow, Uptime>;
  /** The custom range, when `from` was given. */
  range: Uptime | null;
}

/** GET /monitors/:id/uptime: the 24 h, 7, 30 and 90-day windows ending now, and optionally [from, to); overall and per location. */
export async function getMonitorUptime(ctx: Ctx, monitorId: string, q: { from?: Date; to?: Date }): Promise<MonitorUptime> {
  await ownMonitor(ctx, monitorId);
  if (q.to && !q.from) throw validationError([{ path: "query.from", message: "from is required when to is given" }]);
  const now = ctx.now ?? new Date();
  const [windows, range] = await Promise.all([
    uptimeWindows(ctx.sql, ctx.actor.orgId, monitorId, { now, byLocation: true }),
    q.from ? uptime(ctx.sql, ctx.actor.orgId, monitorId, { from: q.from, to: q.to ?? now, byLocation: true }) : null,
  ]);
  return { windows, range };
}

/** Default span of an aggregates request without `from`: a day of hours, 30 days of days. */
const DEFAULT_AGGREGATE_SPAN_MS: Record<BucketSize, number> = { hour: 24 * HOUR_MS, day: 30 * DAY_MS };

/** GET /monitors/:id/aggregates: hour or day buckets over [from, to), every bucket present. */
export async function getMonitorAggregates(
  ctx: Ctx,
  monitorId: string,
  q: { bucket: BucketSize; from?: Date; to?: Date; location?: string },
): Promise<{ from: Date; to: Date; buckets: AggregateBucket[] }> {
  await ownMonitor(ctx, monitorId);
  const to = q.to ?? ctx.now ?? new Date();
  const from = q.from ?? new Date(to.getTime() - DEFAULT_AGGREGATE_SPAN_MS[q.bucket]);
  const buckets = await aggregates(ctx.sql, ctx.actor.orgId, monitorId, { bucket: q.bucket, from, to, location: q.location });
  return { from, to, buckets };
}

/** GET /retention: the organisation's effective retention window. */
export async function getOrgRetention(ctx: Ctx): Promise<Retention> {
  const retention = await getRetention(ctx.sql, ctx.actor.orgId, ctx.now);
  if (!retention) throw notFound("Organisation");
  return retention;
}
