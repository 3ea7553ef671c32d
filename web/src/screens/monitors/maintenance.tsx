import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, data } from "../../api/client";
import { EmptyState, ErrorMessage, Field, fmtTime, Loading } from "../../components/ui";

const iso = (local: FormDataEntryValue | null) => (local ? new Date(String(local)).toISOString() : null);

export function MaintenanceWindows() {
  const qc = useQueryClient();
  const q = useQuery({ queryKey: ["maintenance"], queryFn: () => api.GET("/api/v1/maintenance-windows", { params: { query: { limit: 100 } } }).then(data) });
  const create = useMutation({
    mutationFn: (f: FormData) => {
      const tags = String(f.get("tags") ?? "").split(",").map((t) => t.trim()).filter(Boolean);
      const rrule = String(f.get("rrule") ?? "").trim();
      return api.POST("/api/v1/maintenance-windows", {
        body: {
          name: String(f.get("name")),
          starts_at: iso(f.get("starts_at")),
          ends_at: iso(f.get("ends_at")),
          ...(rrule ? { rrule, duration_minutes: Number(f.get("duration_minutes") || 60), timezone: Intl.DateTimeFormat().resolvedOptions().timeZone } : {}),
          ...(tags.length ? { tags } : {}),
        },
      });
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: ["maintenance"] }),
  });
  const remove = useMutation({ mutationFn: (id: string) => api.DELETE("/api/v1/maintenance-windows/{id}", { params: { path: { id } } }), onSettled: () => qc.invalidateQueries({ queryKey: ["maintenance"] }) });
  if (q.isPending) return <Loading what="maintenance windows" />;
  if (q.isError) return <ErrorMessage error={q.error} />;
  return (
    <section aria-labelledby="mw-h">
      <h1 id="mw-h">Maintenance windows</h1>
      {q.data.data.length === 0 ? (
        <EmptyState title="Planned work without false alarms">
          <p>During a maintenance window, checks still run but no alert fires. Schedule one below — once, or recurring with an RRULE.</p>
        </EmptyState>
      ) : (
        <ul className="cards">
          {q.data.data.map((w) => (
            <li key={w.id} className="card">
              <strong>{w.name}</strong> {fmtTime(w.starts_at)} → {fmtTime(w.ends_at)} {w.rrule && <code>{w.rrule}</code>}
              <button className="danger" onClick={() => confirm(`Delete ${w.name}?`) && remove.mutate(w.id)}>
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
      <h2>Schedule maintenance</h2>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate(new FormData(e.currentTarget));
        }}
      >
        <Field label="Name" name="name" required />
        <div className="row">
          <Field label="Starts" name="starts_at" type="datetime-local" required />
          <Field label="Ends" name="ends_at" type="datetime-local" />
        </div>
        <Field label="Repeat (RRULE, optional)" name="rrule" placeholder="FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=0" />
        <Field label="Each occurrence lasts (minutes)" name="duration_minutes" type="number" min={1} />
        <Field label="Only monitors tagged (comma separated; empty = all)" name="tags" />
        <ErrorMessage error={create.error ?? remove.error} />
        <button className="primary" disabled={create.isPending}>
          Schedule
        </button>
      </form>
    </section>
  );
}
