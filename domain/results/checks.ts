import type { Sql } from "../../db/client.ts";
import { validationError } from "../../core/errors.ts";
import { storageMode } from "../../db/results/storage-mode.ts";
import { countResults, cursorResults, selectResultById, selectResultByJobId, selectResults, type ResultFilter } from "../../db/queries/results.ts";
import { selectCounts } from "../../db/queries/uptime.ts";
import { parseResultId } from "./result-id.ts";
import { rollupsCompleteThrough } from "./rollup-closer.ts";
import { DAY_MS, planSegments } from "./segments.ts";
import type { CheckResultRow, ResultStatus } from "./types.ts";

/** Without `from`, listing covers the 7 days before `to`: the count stays bounded by a time range. */
const DEFAULT_LIST_RANGE_MS = 7 * DAY_MS;
const MAX_LIST_LIMIT = 1000;

export interface ListResultsOptions {
  status?: ResultStatus;
  location?: string;
  from?: Date;
  to?: Date;
  limit?: number;
  offset?: number;
}

export interface ResultPage {
  items: CheckResultRow[];
  /** Results matching the filters within [from, to). */
  total: number;
  from: Date;
  to: Date;
}

function range(opts: { from?: Date; to?: Date }): { from: Date; to: Date } {
  const to = opts.to ?? new Date();
  const from = opts.from ?? new Date(to.getTime() - DEFAULT_LIST_RANGE_MS);
  if (!(from.getTime() < to.getTime())) throw validationError([{ path: "query.from", message: "from must be before to" }]);
  return { from, to };
}

/**
 * How many results match. Plain PostgreSQL: summed from the daily and hourly rollups with raw rows
 * only at the sub-hour edges and after the rollup watermark (the uptime query), so a 90-day count of
 * a one-minute monitor costs a few ms rather than a scan of 130,000 index entries; a result is in the
 * rollups exactly when it is due before the watermark, keyed by due time, status and location, so the
 * sum is exact.
 * TimescaleDB: count(*) on the hypertable, because a continuous aggregate lags for results stored
 * behind its refresh watermark, and a total must agree with the rows listed.
 */
async function countMatching(sql: Sql, f: ResultFilter): Promise<number> {
  if ((await storageMode(sql)) === "timescale") return countResults(sql, f);
  const rows = await selectCounts(sql, { orgId: f.orgId, monitorIds: [f.monitorId], segments: planSegments(f.from, f.to, await rollupsCompleteThrough(sql)), bucket: null, location: f.location, durations: false });
  return rows.reduce((n, r) => n + (f.status ? r[f.status] : r.total), 0);
}

/** One monitor's raw results, newest first by due time, with the total count over the same range. */
export async function listResults(sql: Sql, orgId: string, monitorId: string, opts: ListResultsOptions = {}): Promise<ResultPage> {
  const filter: ResultFilter = { orgId, monitorId, ...range(opts), status: opts.status, location: opts.location };
  const limit = Math.min(Math.max(opts.limit ?? 50, 1), MAX_LIST_LIMIT);
  const offset = Math.max(opts.offset ?? 0, 0);
  const [items, total] = await Promise.all([selectResults(sql, filter, { limit, offset }), countMatching(sql, filter)]);
  return { items, total, from: filter.from, to: filter.to };
}

/** A result by its id (`chk_…`) or by the job id that produced it; null when this monitor has none. */
export async function getResult(sql: Sql, orgId: string, monitorId: string, idOrJobId: string): Promise<CheckResultRow | null> {
  const id = parseResultId(idOrJobId);
  const row = id
    ? await selectResultById(sql, orgId, monitorId, id.uuid, id.scheduledAtMs)
    : await selectResultByJobId(sql, orgId, monitorId, idOrJobId);
  return row ?? null;
}

/** Batches of results in due-time order, read through a cursor: an export never holds them all in memory. */
export function streamResults(
  sql: Sql,
  orgId: string,
  monitorId: string,
  opts: { from: Date; to: Date; status?: ResultStatus; location?: string; batchSize?: number },
): AsyncIterable<CheckResultRow[]> {
  const filter: ResultFilter = { orgId, monitorId, ...range(opts), status: opts.status, location: opts.location };
  return cursorResults(sql, filter, opts.batchSize ?? 1000);
}
