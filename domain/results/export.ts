import { stringify } from "csv-stringify/sync";
import { withAllFields } from "./result-data.ts";
import type { CheckResultRow } from "./types.ts";

export type ExportFormat = "csv" | "json";

/** A result as the API shows it (list, detail and JSON export): times as ISO 8601 strings. */
export interface ResultView {
  id: string;
  job_id: string;
  monitor_id: string;
  location: string;
  location_type: CheckResultRow["location_type"];
  scheduled_at: string;
  checked_at: string;
  status: CheckResultRow["status"];
  duration_ms: number;
  error: string | null;
  data: Record<string, unknown>;
}

export function toResultView(r: CheckResultRow): ResultView {
  return {
    id: r.id,
    job_id: r.job_id,
    monitor_id: r.monitor_id,
    location: r.location,
    location_type: r.location_type,
    scheduled_at: r.scheduled_at.toISOString(),
    checked_at: r.checked_at.toISOString(),
    status: r.status,
    duration_ms: r.duration_ms,
    error: r.error,
    data: r.data,
  };
}

/** The fixed CSV columns; the type's documented data fields follow as `data.<field>`, then `data` as JSON. */
const CSV_COLUMNS = ["id", "scheduled_at", "checked_at", "status", "duration_ms", "location", "location_type", "error", "job_id"] as const;

interface Encoder {
  start(): string;
  rows(rows: CheckResultRow[]): string;
  end(): string;
}

/**
 * Text cells starting with = + - @ or a tab/CR are prefixed with ' so a spreadsheet does not run
 * them as formulas (error texts, URLs and WHOIS fields come from the monitored target). Numbers are untouched.
 */
const defuse = (v: string) => (/^[=+\-@\t\r]/.test(v) ? `'${v}` : v);

function csvEncoder(dataFields: readonly string[]): Encoder {
  const columns = [...CSV_COLUMNS, ...dataFields.map((f) => `data.${f}`), "data"];
  const options = {
    columns,
    cast: { boolean: (v: boolean) => String(v), object: (v: object) => JSON.stringify(v), string: defuse, date: (v: Date) => v.toISOString() },
  };
  return {
    start: () => stringify([], { ...options, header: true }),
    rows: (rows) =>
      stringify(
        rows.map((r) => {
          const cells: Record<string, unknown> = {
            id: r.id,
            scheduled_at: r.scheduled_at,
            checked_at: r.checked_at,
            status: r.status,
            duration_ms: r.duration_ms,
            location: r.location,
            location_type: r.location_type,
            error: r.error,
            job_id: r.job_id,
            data: r.data,
          };
          for (const f of dataFields) cells[`data.${f}`] = r.data[f] ?? null;
          return cells;
        }),
        options,
      ),
    end: () => "",
  };
}

function jsonEncoder(dataFields: readonly string[]): Encoder {
  let first = true;
  const complete = withAllFields(dataFields);
  return {
    start: () => "[",
    rows: (rows) => {
      let out = "";
      for (const r of rows) {
        out += `${first ? "\n" : ",\n"}${JSON.stringify(toResultView(complete(r)))}`;
        first = false;
      }
      return out;
    },
    end: () => (first ? "]\n" : "\n]\n"),
  };
}

const utf8 = new TextEncoder();

/**
 * Turns batches of results into a byte stream of CSV (header row first) or a JSON array. A batch
 * is read only when the consumer asks for more, so at most one batch is in memory; the first batch
 * is read before returning, so a failing query surfaces as an error here rather than mid-stream.
 * Cancelling the stream (client gone) ends the source iterator, which releases a database cursor.
 */
export async function encodeExport(
  batches: AsyncIterable<CheckResultRow[]>,
  format: ExportFormat,
  dataFields: readonly string[] = [],
  onError: (err: unknown) => void = () => {},
): Promise<ReadableStream<Uint8Array>> {
  const encoder = format === "csv" ? csvEncoder(dataFields) : jsonEncoder(dataFields);
  const source = batches[Symbol.asyncIterator]();
  let pending: IteratorResult<CheckResultRow[]> | null = await source.next();
  let started = false;
  let cancelled = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const head = started ? "" : encoder.start();
          started = true;
          const next = pending ?? (await source.next());
          pending = null;
          // Cancelled while this batch was being read: postgres.js ignores a return() that arrives
          // during a fetch, so end the cursor again now that the fetch is over.
          if (cancelled) return void (await source.return?.());
          if (next.done) {
            controller.enqueue(utf8.encode(head + encoder.end()));
            controller.close();
            return;
          }
          controller.enqueue(utf8.encode(head + encoder.rows(next.value)));
        } catch (err) {
          await source.return?.();
          if (cancelled) return;
          onError(err);
          controller.error(err);
        }
      },
      // The client went away; a pull still waiting for its batch sees the flag and stops.
      async cancel() {
        cancelled = true;
        await source.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}
