import { useQuery } from "@tanstack/react-query";
import { dataSchemas } from "../../../../../schemas/check-types.ts";
import { api, data } from "../../../api/client";
import { fmtRunTime } from "../../../components/run-time";
import { ErrorMessage, fmtTime, Loading, StatusBadge } from "../../../components/ui";
import { Link } from "../../../lib/router";
import type { Monitor } from "../use-monitors";
import type { CheckResult } from "./chart-data";

type Row = Record<string, unknown>;
const isRecordList = (v: unknown): v is Row[] => Array.isArray(v) && v.length > 0 && v.every((r) => r !== null && typeof r === "object" && !Array.isArray(r));
const cell = (v: unknown) => (v === null || v === undefined ? "—" : typeof v === "boolean" ? (v ? "yes" : "no") : typeof v === "object" ? JSON.stringify(v) : String(v));
/** A row that did not pass: an assertion with passed false, a flow step with status failed. */
const failed = (r: Row) => r.passed === false || r.status === "failed";

const COLUMN_ORDER = ["index", "step", "name", "action", "source", "property", "operator", "target", "actual", "passed", "status", "severity", "duration_ms", "error"];
const rank = (column: string) => (COLUMN_ORDER.includes(column) ? COLUMN_ORDER.indexOf(column) : COLUMN_ORDER.length);

/** A list of records (assertion outcomes, flow steps) as a table, failed rows marked. */
function RecordTable({ name, rows }: { name: string; rows: Row[] }) {
  // Stored result data comes back from jsonb with its keys reordered: known columns keep a reading order.
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))].sort((a, b) => rank(a) - rank(b));
  return (
    <div className="table-scroll">
      <table className="records" aria-label={name}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i} className={failed(r) ? "failed" : undefined}>
              {columns.map((c) => (
                <td key={c}>{cell(r[c])}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const show = (k: string, v: unknown) =>
  v === null || v === undefined ? (
    <span className="muted">not measured</span>
  ) : isRecordList(v) ? (
    <RecordTable name={k} rows={v} />
  ) : typeof v === "object" ? (
    <pre>{JSON.stringify(v, null, 2)}</pre>
  ) : typeof v === "string" && v.includes("\n") ? (
    // A heartbeat's ping body: shown as text (React escapes it), its lines kept.
    <pre className="ping-body">{v}</pre>
  ) : (
    String(v)
  );

/** Every field of one result, the check type's data fields with what each one means. */
export function ResultFields({ result: r, type }: { result: Partial<CheckResult> & Pick<CheckResult, "status" | "location" | "checked_at" | "duration_ms" | "data">; type: Monitor["type"] }) {
  const described = (dataSchemas[type]?.properties ?? {}) as Record<string, { description?: string }>;
  const keys = [...new Set([...Object.keys(described), ...Object.keys(r.data ?? {})])];
  return (
    <dl className="result-fields">
      <dt>Status</dt>
      <dd>
        <StatusBadge status={r.status} />
      </dd>
      {r.error && (
        <>
          <dt>Error</dt>
          <dd className="field-error">{r.error}</dd>
        </>
      )}
      <dt>{type === "heartbeat" ? "Run time" : "Duration"}</dt>
      <dd>{fmtRunTime(type, r)}</dd>
      <dt>Location</dt>
      <dd>
        {r.location} {r.location_type ? `(${r.location_type})` : ""}
      </dd>
      {r.scheduled_at && (
        <>
          <dt>Due</dt>
          <dd>{fmtTime(r.scheduled_at)}</dd>
        </>
      )}
      <dt>Ran</dt>
      <dd>{fmtTime(r.checked_at)}</dd>
      {keys.map((k) => (
        <div key={k} className="pair">
          <dt title={described[k]?.description}>
            <code>{k}</code>
          </dt>
          <dd>
            {show(k, r.data[k])}
            {described[k]?.description && <small className="muted"> — {described[k]!.description}</small>}
          </dd>
        </div>
      ))}
      {r.id && !r.id.startsWith("live-") && (
        <>
          <dt>Result id</dt>
          <dd>
            <code>{r.id}</code>
          </dd>
        </>
      )}
    </dl>
  );
}

/** `/monitors/:id/checks/:checkId`: one result on its own page, linkable. */
export function ResultPage({ id, checkId }: { id: string; checkId: string }) {
  const monitor = useQuery({ queryKey: ["monitor", id], queryFn: () => api.GET("/api/v1/monitors/{id}", { params: { path: { id } } }).then(data) });
  const result = useQuery({ queryKey: ["monitor-check", id, checkId], queryFn: () => api.GET("/api/v1/monitors/{id}/checks/{checkId}", { params: { path: { id, checkId } } }).then(data) });
  if (monitor.isPending || result.isPending) return <Loading what="check result" />;
  if (monitor.isError || result.isError) return <ErrorMessage error={monitor.error ?? result.error} />;
  return (
    <section aria-labelledby="result-page-h">
      <Link to={`/monitors/${id}`}>← {monitor.data.name}</Link>
      <h1 id="result-page-h">Check result</h1>
      <ResultFields result={result.data} type={monitor.data.type} />
    </section>
  );
}
