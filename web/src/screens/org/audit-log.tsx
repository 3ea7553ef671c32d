import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api, data } from "../../api/client";
import { EmptyState, ErrorMessage, Field, fmtTime, Loading } from "../../components/ui";
import { auditSentence } from "./audit-words";
import { OrgNav } from "./org-nav";
import { useMyRole } from "./use-permissions";

type Filters = { actor?: string; action?: string; target?: string; from?: string; to?: string };

/** Who changed what and when, filtered by actor, action, target and time. */
export function AuditLog() {
  const { can, loading } = useMyRole();
  const [filters, setFilters] = useState<Filters>({});
  const [page, setPage] = useState(1);
  const admin = can("org:admin");
  // On a phone the five filters would fill the first screen: they start folded there.
  const [filtersOpen, setFiltersOpen] = useState(() => !matchMedia("(max-width: 640px)").matches);
  const q = useQuery({
    queryKey: ["audit-log", filters, page],
    enabled: admin,
    queryFn: () => api.GET("/api/v1/audit-log", { params: { query: { ...filters, page, limit: 50 } } }).then(data),
    placeholderData: (prev) => prev,
  });
  return (
    <section aria-labelledby="audit-h">
      <h1 id="audit-h">Organisation</h1>
      <OrgNav />
      <h2 id="audit-list-h">Audit log</h2>
      {loading ? (
        <Loading what="your role" />
      ) : !admin ? (
        <p>Only administrators can read the audit log.</p>
      ) : (
        <>
          <details className="more audit-filters" open={filtersOpen} onToggle={(e) => setFiltersOpen(e.currentTarget.open)}>
            <summary>Filters{Object.keys(filters).length ? ` (${Object.keys(filters).length} on)` : ""}</summary>
            <form
              className="toolbar"
              role="search"
              aria-label="Filter the audit log"
              onSubmit={(e) => {
                e.preventDefault();
                const f = new FormData(e.currentTarget);
                const pick = (k: string) => String(f.get(k) ?? "").trim() || undefined;
                const when = (k: string) => (pick(k) ? new Date(pick(k)!).toISOString() : undefined);
                setPage(1);
                setFilters(
                  Object.fromEntries(
                    Object.entries({ actor: pick("actor"), action: pick("action"), target: pick("target"), from: when("from"), to: when("to") }).filter(([, v]) => v),
                  ),
                );
              }}
            >
              <Field label="Actor" name="actor" placeholder="email, user or key id" />
              <Field label="Action" name="action" placeholder="api_keys or api_keys.create" />
              <Field label="Target" name="target" placeholder="id or type" />
              <Field label="From" name="from" type="datetime-local" />
              <Field label="To" name="to" type="datetime-local" />
              <button className="primary">Filter</button>
              <button
                type="reset"
                onClick={() => {
                  setPage(1);
                  setFilters({});
                }}
              >
                Clear
              </button>
            </form>
          </details>
          {q.isPending ? (
            <Loading what="the audit log" />
          ) : q.isError ? (
            <ErrorMessage error={q.error} />
          ) : q.data.data.length === 0 ? (
            <EmptyState title={Object.keys(filters).length ? "Nothing matches these filters" : "Nothing recorded yet"}>
              <p>Changes to members, roles, keys, billing and settings are recorded here with who made them and from where.</p>
            </EmptyState>
          ) : (
            <>
              <ol className="audit-entries" aria-labelledby="audit-list-h" data-testid="audit-log">
                {q.data.data.map((r) => (
                  <li key={r.id} data-action={r.action}>
                    <details>
                      <summary>
                        <span className="audit-sentence">{auditSentence(r)}</span>
                        <time className="muted" dateTime={r.created_at}>
                          {fmtTime(r.created_at)}
                        </time>
                      </summary>
                      <dl className="result-fields">
                        <div className="pair">
                          <dt>Action</dt>
                          <dd>
                            <code>{r.action}</code>
                          </dd>
                        </div>
                        <div className="pair">
                          <dt>Actor</dt>
                          <dd>{r.actor}</dd>
                        </div>
                        <div className="pair">
                          <dt>Target</dt>
                          <dd>
                            {r.target_type}
                            {r.target_id ? ` ${r.target_id}` : ""}
                          </dd>
                        </div>
                        <div className="pair">
                          <dt>From</dt>
                          <dd>{r.ip ?? "—"}</dd>
                        </div>
                        <div className="pair">
                          <dt>Details</dt>
                          <dd>
                            <pre>{JSON.stringify(r.details, null, 2)}</pre>
                          </dd>
                        </div>
                      </dl>
                    </details>
                  </li>
                ))}
              </ol>
              <div className="row" role="navigation" aria-label="Audit log pages">
                <button disabled={page <= 1} onClick={() => setPage(page - 1)}>
                  Newer
                </button>
                <span>
                  Page {page} of {String(q.data.pagination.totalPages)} ({String(q.data.pagination.total)} entries)
                </span>
                <button disabled={!q.data.pagination.hasMore} onClick={() => setPage(page + 1)}>
                  Older
                </button>
              </div>
            </>
          )}
        </>
      )}
    </section>
  );
}
