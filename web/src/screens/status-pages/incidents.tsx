import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, data, type paths } from "../../api/client";
import { fmtAgo } from "../../components/format";
import { ConfirmButton } from "../../components/widgets";
import { EmptyState, ErrorMessage, Field, fmtTime, Loading, Select } from "../../components/ui";
import { Link, useRouter } from "../../lib/router";

type Incident = paths["/api/v1/incidents/{id}"]["get"]["responses"]["200"]["content"]["application/json"];
type Impact = Incident["impact"];
type Status = Incident["status"];

const IMPACTS: [Impact, string][] = [
  ["none", "None (notice only)"],
  ["minor", "Minor: degraded"],
  ["major", "Major: partial outage"],
  ["critical", "Critical: major outage"],
];
const STATUSES: [Status, string][] = [
  ["investigating", "Investigating"],
  ["identified", "Identified"],
  ["monitoring", "Monitoring a fix"],
  ["resolved", "Resolved"],
];

const usePages = () => useQuery({ queryKey: ["status-pages"], queryFn: () => api.GET("/api/v1/status-pages", { params: { query: { limit: 100 } } }).then(data) });

function Badge({ value }: { value: string }) {
  return (
    <span className={`badge badge-${value}`} data-status={value}>
      {value}
    </span>
  );
}

export function Incidents() {
  const qc = useQueryClient();
  const { navigate } = useRouter();
  const [filter, setFilter] = useState<"active" | "resolved" | "">("active");
  const list = useQuery({
    queryKey: ["incidents", filter],
    queryFn: () => api.GET("/api/v1/incidents", { params: { query: { limit: 100, ...(filter ? { status: filter } : {}) } } }).then(data),
  });
  const pages = usePages();
  const create = useMutation({
    mutationFn: (body: { title: string; impact: Impact; status: Status; message: string; component_ids: string[]; page_ids: string[] }) => api.POST("/api/v1/incidents", { body }).then(data),
    onSuccess: (i) => {
      void qc.invalidateQueries({ queryKey: ["incidents"] });
      navigate(`/incidents/${i.id}`);
    },
  });
  return (
    <section aria-labelledby="incidents-h">
      <header className="page-head">
        <h1 id="incidents-h">Incidents</h1>
      </header>
      <div className="segmented" role="radiogroup" aria-label="Show">
        {(
          [
            ["active", "Open"],
            ["resolved", "Resolved"],
            ["", "All"],
          ] as const
        ).map(([v, text]) => (
          <label key={v}>
            <input type="radio" name="incident-filter" checked={filter === v} onChange={() => setFilter(v)} /> {text}
          </label>
        ))}
      </div>
      {list.isPending ? (
        <Loading what="incidents" />
      ) : list.isError ? (
        <ErrorMessage error={list.error} />
      ) : list.data.data.length === 0 ? (
        <EmptyState title={filter === "active" ? "No open incidents" : "No incidents"}>
          <p>When something breaks, open an incident below: it shows on the status pages of the components it affects and their subscribers are told.</p>
        </EmptyState>
      ) : (
        <table className="table" data-testid="incidents">
          <thead>
            <tr>
              <th scope="col">Incident</th>
              <th scope="col">Impact</th>
              <th scope="col">Status</th>
              <th scope="col">Started</th>
              <th scope="col">Last update</th>
            </tr>
          </thead>
          <tbody>
            {list.data.data.map((i) => (
              <tr key={i.id}>
                <th scope="row">
                  <Link to={`/incidents/${i.id}`}>{i.title}</Link>
                </th>
                <td>
                  <Badge value={i.impact} />
                </td>
                <td>
                  <Badge value={i.status} />
                </td>
                <td title={fmtTime(i.created_at)}>{fmtAgo(i.created_at)}</td>
                <td>{i.updates[0]?.message ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2 id="new-incident-h">Open an incident</h2>
      <form
        className="stack"
        aria-labelledby="new-incident-h"
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          create.mutate({
            title: String(f.get("title")).trim(),
            impact: String(f.get("impact")) as Impact,
            status: String(f.get("status")) as Status,
            message: String(f.get("message")).trim(),
            component_ids: f.getAll("component_ids").map(String),
            page_ids: f.getAll("page_ids").map(String),
          });
        }}
      >
        <Field label="Title" name="title" required maxLength={200} placeholder="Checkout is slow" />
        <div className="row">
          <Select label="Impact" name="impact" defaultValue="minor">
            {IMPACTS.map(([v, t]) => (
              <option key={v} value={v}>
                {t}
              </option>
            ))}
          </Select>
          <Select label="Status" name="status" defaultValue="investigating">
            {STATUSES.filter(([v]) => v !== "resolved").map(([v, t]) => (
              <option key={v} value={v}>
                {t}
              </option>
            ))}
          </Select>
        </div>
        <div className="field">
          <label htmlFor="incident-message">First update</label>
          <textarea id="incident-message" name="message" required maxLength={5000} rows={3} placeholder="We are looking into slow checkouts." />
        </div>
        <Affected pages={pages.data?.data ?? []} />
        <ErrorMessage error={create.error} />
        <button className="primary" disabled={create.isPending}>
          Open incident
        </button>
      </form>
    </section>
  );
}

type PageRow = paths["/api/v1/status-pages"]["get"]["responses"]["200"]["content"]["application/json"]["data"][number];

/** Affected components grouped by page and section, and pages to show the incident on. */
function Affected({ pages, components = [], onPages = [] }: { pages: PageRow[]; components?: string[]; onPages?: string[] }) {
  if (pages.length === 0) return <p className="muted">No status page yet: the incident is recorded but shows nowhere until you add it to a page.</p>;
  return (
    <fieldset>
      <legend>Where it shows</legend>
      {pages.map((p) => (
        <fieldset key={p.id}>
          <legend>{p.name}</legend>
          <label className="inline">
            <input type="checkbox" name="page_ids" value={p.id} defaultChecked={onPages.includes(p.id)} /> Show on this page
          </label>
          {p.layout.sections.map((s) => (
            <div key={s.id}>
              <span className="muted">{s.name}: </span>
              {s.components.map((c) => (
                <label key={c.id} className="inline">
                  <input type="checkbox" name="component_ids" value={c.id} defaultChecked={components.includes(c.id)} /> {c.display_name}
                </label>
              ))}
            </div>
          ))}
        </fieldset>
      ))}
    </fieldset>
  );
}

export function IncidentDetail({ id }: { id: string }) {
  const qc = useQueryClient();
  const { navigate } = useRouter();
  const q = useQuery({ queryKey: ["incident", id], queryFn: () => api.GET("/api/v1/incidents/{id}", { params: { path: { id } } }).then(data) });
  const pages = usePages();
  const [resolution, setResolution] = useState("");
  const [editing, setEditing] = useState(false);
  const done = (i: Incident) => {
    qc.setQueryData(["incident", id], i);
    void qc.invalidateQueries({ queryKey: ["incidents"] });
  };
  const post = useMutation({
    mutationFn: (body: { message: string; status: Status; impact?: Impact }) => api.POST("/api/v1/incidents/{id}/updates", { params: { path: { id } }, body }).then(data),
    onSuccess: done,
  });
  const resolve = useMutation({
    mutationFn: () => api.POST("/api/v1/incidents/{id}/resolve", { params: { path: { id } }, body: resolution.trim() ? { message: resolution.trim() } : {} }).then(data),
    onSuccess: done,
  });
  const patch = useMutation({
    mutationFn: (body: { title: string; impact: Impact; component_ids: string[]; page_ids: string[] }) => api.PATCH("/api/v1/incidents/{id}", { params: { path: { id } }, body }).then(data),
    onSuccess: (i) => {
      done(i);
      setEditing(false);
    },
  });
  const remove = useMutation({
    mutationFn: () => api.DELETE("/api/v1/incidents/{id}", { params: { path: { id } } }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ["incidents"] });
      navigate("/incidents");
    },
  });
  if (q.isPending) return <Loading what="the incident" />;
  if (q.isError) return <ErrorMessage error={q.error} />;
  const i = q.data;
  const names = new Map<string, string>();
  for (const p of pages.data?.data ?? []) {
    names.set(p.id, p.name);
    for (const s of p.layout.sections) for (const c of s.components) names.set(c.id, `${c.display_name} (${p.name})`);
  }
  const resolved = i.status === "resolved";
  return (
    <section aria-labelledby="incident-h">
      <p>
        <Link to="/incidents">← Incidents</Link>
      </p>
      <header className="page-head">
        <h1 id="incident-h">{i.title}</h1>
        <Badge value={i.impact} />
        <Badge value={i.status} />
      </header>
      <p className="muted">
        Opened {fmtTime(i.created_at)}
        {i.resolved_at ? `, resolved ${fmtTime(i.resolved_at)}` : ""}. Affects:{" "}
        {[...i.component_ids, ...i.page_ids].map((x) => names.get(x) ?? x).join(", ") || "nothing on a status page yet"}.
      </p>
      <div className="grid-2">
        <div>
          <h2 id="timeline-h">Timeline</h2>
          <ol className="timeline" aria-labelledby="timeline-h" data-testid="timeline">
            {i.updates.map((u) => (
              <li key={u.id}>
                <Badge value={u.status} /> <time dateTime={u.created_at}>{fmtTime(u.created_at)}</time>
                <p>{u.message}</p>
              </li>
            ))}
          </ol>
        </div>
        <div>
          {!resolved && (
            <form
              key={i.updates.length}
              className="stack card"
              aria-label="Post an update"
              onSubmit={(e) => {
                e.preventDefault();
                const f = e.currentTarget;
                const fd = new FormData(f);
                const impact = String(fd.get("update_impact"));
                post.mutate(
                  { message: String(fd.get("update_message")).trim(), status: String(fd.get("update_status")) as Status, ...(impact ? { impact: impact as Impact } : {}) },
                  { onSuccess: () => f.reset() },
                );
              }}
            >
              <h2>Post an update</h2>
              <Select label="Status" name="update_status" defaultValue={i.status}>
                {STATUSES.map(([v, t]) => (
                  <option key={v} value={v}>
                    {t}
                  </option>
                ))}
              </Select>
              <Select label="Impact" name="update_impact" defaultValue="">
                <option value="">Unchanged ({i.impact})</option>
                {IMPACTS.map(([v, t]) => (
                  <option key={v} value={v}>
                    {t}
                  </option>
                ))}
              </Select>
              <div className="field">
                <label htmlFor="update-message">Message</label>
                <textarea id="update-message" name="update_message" required maxLength={5000} rows={3} />
              </div>
              <ErrorMessage error={post.error} />
              <button className="primary" disabled={post.isPending}>
                Post update
              </button>
            </form>
          )}
          {!resolved && (
            <div className="card">
              <h2>Resolve</h2>
              <div className="field">
                <label htmlFor="resolution">Closing message (optional)</label>
                <textarea id="resolution" rows={2} maxLength={5000} value={resolution} onChange={(e) => setResolution(e.target.value)} placeholder="Checkouts are fast again." />
              </div>
              <ConfirmButton label="Resolve incident" danger={false} title={`Resolve “${i.title}”?`} confirmLabel="Resolve" onConfirm={() => resolve.mutate()}>
                <p>The incident closes and the subscribers of its pages are told.</p>
              </ConfirmButton>
              <ErrorMessage error={resolve.error} />
            </div>
          )}
          {editing ? (
            <form
              className="stack card"
              aria-label="Edit the incident"
              onSubmit={(e) => {
                e.preventDefault();
                const f = new FormData(e.currentTarget);
                patch.mutate({
                  title: String(f.get("edit_title")).trim(),
                  impact: String(f.get("edit_impact")) as Impact,
                  component_ids: f.getAll("component_ids").map(String),
                  page_ids: f.getAll("page_ids").map(String),
                });
              }}
            >
              <h2>Edit</h2>
              <p className="muted">Edits do not notify subscribers; post an update to tell them.</p>
              <Field label="Title" name="edit_title" required maxLength={200} defaultValue={i.title} />
              <Select label="Impact" name="edit_impact" defaultValue={i.impact}>
                {IMPACTS.map(([v, t]) => (
                  <option key={v} value={v}>
                    {t}
                  </option>
                ))}
              </Select>
              <Affected pages={pages.data?.data ?? []} components={i.component_ids} onPages={i.page_ids} />
              <ErrorMessage error={patch.error} />
              <div className="row">
                <button className="primary" disabled={patch.isPending}>
                  Save
                </button>
                <button type="button" onClick={() => setEditing(false)}>
                  Cancel
                </button>
              </div>
            </form>
          ) : (
            <div className="row">
              <button onClick={() => setEditing(true)}>Edit title, impact and placement</button>
              <ConfirmButton label="Delete" buttonLabel="Delete incident" title={`Delete “${i.title}”?`} confirmLabel="Delete incident" onConfirm={() => remove.mutate()}>
                <p>It disappears from every status page and its history. Subscribers are not told.</p>
              </ConfirmButton>
            </div>
          )}
          <ErrorMessage error={remove.error} />
        </div>
      </div>
    </section>
  );
}
