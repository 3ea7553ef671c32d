import type { Sql } from "../client.ts";
import type { CheckResultRow, LocationType, ResultStatus } from "./result-rows.ts";

/** A result ready to store: validated, times as ISO strings (its id is derived: check_result_id). */
export interface ResultRecord {
  job_id: string;
  org_id: string;
  monitor_id: string;
  location: string;
  location_type: LocationType;
  scheduled_at: string;
  checked_at: string;
  status: ResultStatus;
  duration_ms: number;
  error: string | null;
  data: Record<string, unknown>;
}

/** What ingest learns about each row it actually inserted. */
export interface InsertedResult {
  id: string;
  job_id: string;
  org_id: string;
  monitor_id: string;
  location: string;
  scheduled_at: Date;
  checked_at: Date;
  status: ResultStatus;
  duration_ms: number;
}

/** What one batch adds to one rollup row (bucket as an ISO string). */
export interface RollupDelta {
  org_id: string;
  monitor_id: string;
  location: string;
  bucket: string;
  total: number;
  up: number;
  down: number;
  degraded: number;
  timeout: number;
  unavailable: number;
  duration_sum: number;
  duration_max: number | null;
  hist: number[];
}

/**
 * The result's id as the API shows it (`chk_` + 32 hex digits): the id stored before migration
 * 20261126110000, or else the one derived from (job_id, scheduled_at) — new rows store none.
 */
const RESULT_ID = "check_result_id(id, job_id, scheduled_at)";
const RESULT_ID_TEXT = `'chk_' || replace(${RESULT_ID}::text, '-', '')`;

/** The first copy of each (job_id, scheduled_at), sorted by it (code units: the same order in every batch). */
function firstCopiesInJobOrder(rows: readonly ResultRecord[]): ResultRecord[] {
  const byKey = new Map<string, ResultRecord>();
  for (const r of rows) {
    const key = `${r.job_id}\u0000${r.scheduled_at}`;
    if (!byKey.has(key)) byKey.set(key, r);
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
}

/**
 * Inserts the rows that are not stored yet (idempotent on (job_id, scheduled_at); within a batch the
 * first copy wins) in one statement with one array parameter per column (cheaper for PostgreSQL than
 * one JSON parameter: bench/ingest-statements.ts; `data` as text, since postgres.js would encode a
 * jsonb[] parameter's strings once more). Copies are dropped and rows sorted here, not by PostgreSQL
 * (two sorts of long text keys per batch): rows go in job order so concurrent batches do not
 * deadlock. Returns the rows actually inserted.
 */
export async function insertResults(sql: Sql, records: readonly ResultRecord[]): Promise<InsertedResult[]> {
  const rows = firstCopiesInJobOrder(records);
  const col = <K extends keyof ResultRecord>(k: K) => rows.map((r) => r[k]);
  return sql<InsertedResult[]>`
    with ins as (
      insert into check_results (job_id, org_id, monitor_id, location, location_type, scheduled_at, checked_at, status, duration_ms, error, data)
      select job_id, org_id, monitor_id, location, location_type, scheduled_at, checked_at, status, duration_ms, error, data::jsonb
      from unnest(
        ${col("job_id")}::text[], ${col("org_id")}::text[], ${col("monitor_id")}::text[], ${col("location")}::text[],
        ${col("location_type")}::text[], ${col("scheduled_at")}::timestamptz[], ${col("checked_at")}::timestamptz[],
        ${col("status")}::text[], ${col("duration_ms")}::integer[], ${col("error")}::text[], ${rows.map((r) => JSON.stringify(r.data))}::text[]
      ) as r(job_id, org_id, monitor_id, location, location_type, scheduled_at, checked_at, status, duration_ms, error, data)
      on conflict (job_id, scheduled_at) do nothing
      returning id, job_id, org_id, monitor_id, location, scheduled_at, checked_at, status, duration_ms
    )
    select ${sql.unsafe(RESULT_ID_TEXT)} as id, job_id, org_id, monitor_id, location, scheduled_at, checked_at, status, duration_ms
    from ins`;
}

/** Delta rows as a relation, one array parameter per column: measured faster than a JSON parameter here. */
function deltaRows(sql: Sql, ds: RollupDelta[]) {
  const col = <K extends keyof RollupDelta>(k: K) => ds.map((d) => d[k]);
  return sql`
    select org_id, monitor_id, location, bucket, total, up, down, degraded, timeout, unavailable, duration_sum, duration_max, hist::integer[]
    from unnest(
      ${col("org_id")}::text[], ${col("monitor_id")}::text[], ${col("location")}::text[], ${col("bucket")}::timestamptz[],
      ${col("total")}::integer[], ${col("up")}::integer[], ${col("down")}::integer[], ${col("degraded")}::integer[],
      ${col("timeout")}::integer[], ${col("unavailable")}::integer[], ${col("duration_sum")}::bigint[], ${col("duration_max")}::integer[],
      ${ds.map((d) => `{${d.hist.join(",")}}`)}::text[]
    ) with ordinality as d(org_id, monitor_id, location, bucket, total, up, down, degraded, timeout, unavailable, duration_sum, duration_max, hist, n)
    order by n`;
}

function upsertRollup(sql: Sql, table: "check_results_hourly" | "check_results_daily", deltas: RollupDelta[]) {
  return sql`
    insert into ${sql(table)} as r (org_id, monitor_id, location, bucket, total, up, down, degraded, timeout, unavailable, duration_sum, duration_max, hist)
    ${deltaRows(sql, deltas)}
    on conflict (org_id, monitor_id, bucket, location) do update set
      total = r.total + excluded.total, up = r.up + excluded.up, down = r.down + excluded.down,
      degraded = r.degraded + excluded.degraded, timeout = r.timeout + excluded.timeout,
      unavailable = r.unavailable + excluded.unavailable, duration_sum = r.duration_sum + excluded.duration_sum,
      duration_max = greatest(r.duration_max, excluded.duration_max), hist = result_hist_add_delta(r.hist, excluded.hist)`;
}

/**
 * Plain mode: late results kept for the closer's next step (rollup_late, migrations 20261126150000 and
 * 20261127100000) instead of being added to rollup rows it may hold: those of the rollup watermark's own
 * hour whole, those of earlier hours of its day for their daily rows only (`hourlyDone`: ingest added
 * them to their hourly rows).
 */
export async function deferLateResults(sql: Sql, rows: readonly InsertedResult[], o: { hourlyDone?: boolean } = {}): Promise<void> {
  if (rows.length === 0) return;
  const col = <K extends keyof InsertedResult>(k: K) => rows.map((r) => r[k]);
  await sql`
    insert into rollup_late (org_id, monitor_id, location, scheduled_at, status, duration_ms, hourly_done)
    select *, ${o.hourlyDone ?? false}::boolean from unnest(${col("org_id")}::text[], ${col("monitor_id")}::text[], ${col("location")}::text[],
      ${rows.map((r) => r.scheduled_at.toISOString())}::timestamptz[], ${col("status")}::text[], ${col("duration_ms")}::integer[])`;
}

/** Plain mode: adds a batch's deltas to the hourly and daily rollup tables, rows in the order given. */
export async function addToRollups(sql: Sql, hourly: RollupDelta[], daily: RollupDelta[]): Promise<void> {
  if (hourly.length === 0) return;
  await sql`with h as (${upsertRollup(sql, "check_results_hourly", hourly)}) ${upsertRollup(sql, "check_results_daily", daily)}`;
}

export interface MonitorStateUpdate {
  org_id: string;
  monitor_id: string;
  status: Exclude<ResultStatus, "unavailable">;
  checked_at: Date;
  duration_ms: number;
}

export interface MonitorStateChange {
  org_id: string;
  monitor_id: string;
  old_status: string;
  new_status: string;
  status_changed_at: Date;
}

/**
 * Moves each monitor to the state of its latest result when that result is newer than the one
 * stored: the narrow monitor_state row is written for every result (locked in monitor id order),
 * the wide monitors row only when its status changes. Returns the monitors whose status changed,
 * with the status before (as of the previous state write, under its row lock; a monitor's first
 * result compares with the monitors row).
 */
export async function updateMonitorStates(sql: Sql, updates: MonitorStateUpdate[]): Promise<MonitorStateChange[]> {
  if (updates.length === 0) return [];
  return monitorStateStatement(sql, updates);
}

/** updateMonitorStates' statement for a non-empty batch, not yet run (bench/monitor-state.ts explains it). */
export function monitorStateStatement(sql: Sql, updates: MonitorStateUpdate[]) {
  const sorted = [...updates].sort((a, b) => (a.monitor_id < b.monitor_id ? -1 : a.monitor_id > b.monitor_id ? 1 : 0));
  const col = <K extends keyof MonitorStateUpdate>(k: K) => sorted.map((u) => u[k]);
  return sql<MonitorStateChange[]>`
    with latest as (
      select * from unnest(
        ${col("monitor_id")}::text[], ${col("org_id")}::text[], ${col("status")}::text[],
        ${sorted.map((u) => u.checked_at.toISOString())}::timestamptz[], ${col("duration_ms")}::integer[]
      ) with ordinality as l(monitor_id, org_id, status, checked_at, duration_ms, n)
    ), moved as (
      insert into monitor_state as s (monitor_id, status, prev_status, last_checked_at, last_duration_ms)
      select l.monitor_id, l.status, m.status, l.checked_at, l.duration_ms
      from latest l join monitors m on m.id = l.monitor_id and m.org_id = l.org_id
      order by l.n
      on conflict (monitor_id) do update set
        prev_status = s.status, status = excluded.status,
        last_checked_at = excluded.last_checked_at, last_duration_ms = excluded.last_duration_ms
      where excluded.last_checked_at > s.last_checked_at
      returning s.monitor_id, s.status, s.prev_status, s.last_checked_at
    )
    update monitors m set status = v.status, status_changed_at = v.last_checked_at
    from moved v
    where m.id = v.monitor_id and m.status <> v.status
    returning m.org_id, m.id as monitor_id, v.prev_status as old_status, m.status as new_status, m.status_changed_at`;
}

const resultColumns = (sql: Sql) =>
  sql`${sql.unsafe(RESULT_ID_TEXT)} as id, job_id, monitor_id, location, location_type, scheduled_at, checked_at, status, duration_ms, error, data`;

export interface ResultFilter {
  orgId: string;
  monitorId: string;
  from: Date;
  to: Date;
  status?: ResultStatus;
  location?: string;
}

function filterWhere(sql: Sql, f: ResultFilter) {
  return sql`
    org_id = ${f.orgId} and monitor_id = ${f.monitorId} and scheduled_at >= ${f.from} and scheduled_at < ${f.to}
    ${f.status ? sql`and status = ${f.status}` : sql``}
    ${f.location ? sql`and location = ${f.location}` : sql``}`;
}

/** Newest first by due time. */
export async function selectResults(sql: Sql, f: ResultFilter, page: { limit: number; offset: number }): Promise<CheckResultRow[]> {
  return sql<CheckResultRow[]>`
    select ${resultColumns(sql)} from check_results where ${filterWhere(sql, f)}
    order by scheduled_at desc, ${sql.unsafe(RESULT_ID)} desc limit ${page.limit} offset ${page.offset}`;
}

export async function countResults(sql: Sql, f: ResultFilter): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from check_results where ${filterWhere(sql, f)}`;
  return row?.n ?? 0;
}

/** By id (stored or derived); `scheduledAt` (decoded from the id) narrows the lookup to one partition and a few rows. */
export async function selectResultById(sql: Sql, orgId: string, monitorId: string, uuid: string, scheduledAtMs: number): Promise<CheckResultRow | undefined> {
  const [row] = await sql<CheckResultRow[]>`
    select ${resultColumns(sql)} from check_results
    where org_id = ${orgId} and monitor_id = ${monitorId} and ${sql.unsafe(RESULT_ID)} = ${uuid}::uuid
      and scheduled_at >= ${new Date(scheduledAtMs)} and scheduled_at < ${new Date(scheduledAtMs + 1)}`;
  return row;
}

export async function selectResultByJobId(sql: Sql, orgId: string, monitorId: string, jobId: string): Promise<CheckResultRow | undefined> {
  const [row] = await sql<CheckResultRow[]>`
    select ${resultColumns(sql)} from check_results
    where org_id = ${orgId} and monitor_id = ${monitorId} and job_id = ${jobId}
    order by scheduled_at desc limit 1`;
  return row;
}

/** Batches of rows in due-time order through a server-side cursor (the pool lends one connection). */
export function cursorResults(sql: Sql, f: ResultFilter, batchSize: number): AsyncIterable<CheckResultRow[]> {
  return sql<CheckResultRow[]>`
    select ${resultColumns(sql)} from check_results where ${filterWhere(sql, f)}
    order by scheduled_at, ${sql.unsafe(RESULT_ID)}`.cursor(batchSize);
}
