import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, data, type paths } from "../../api/client";
import { MonitorName } from "../../components/monitor-name";
import { MonitorPicker } from "../../components/monitor-picker";
import { EmptyState, ErrorMessage, Field, fmtTime, issuesOf, Loading } from "../../components/ui";
import { localInput, readWindowForm, RRULE_PRESETS, upcomingStarts, type WindowKind } from "./maintenance-body";

type Window = paths["/api/v1/maintenance-windows"]["get"]["responses"]["200"]["content"]["application/json"]["data"][number];
const STATES = ["active", "upcoming", "ended"] as const;
const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
const ZONES: string[] = (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.("timeZone") ?? [browserZone, "UTC"];

function describeTiming(w: Window): string {
  if (w.kind === "once") return `${fmtTime(w.starts_at)} → ${fmtTime(w.ends_at)}`;
  const rule = w.kind === "rrule" ? w.rrule : `cron ${w.cron}`;
  return `${rule}, ${String(w.duration_minutes)} min each (${w.timezone})`;
}

export function MaintenanceWindows() {
  const qc = useQueryClient();
  const [state, setState] = useState("");
  const [editing, setEditing] = useState<string | null>(null);
  const q = useQuery({
    queryKey: ["maintenance", state],
    queryFn: () => api.GET("/api/v1/maintenance-windows", { params: { query: { limit: 100, ...(state ? { state: state as (typeof STATES)[number] } : {}) } } }).then(data),
  });
  const remove = useMutation({
    mutationFn: (id: string) => api.DELETE("/api/v1/maintenance-windows/{id}", { params: { path: { id } } }),
    onSettled: () => qc.invalidateQueries({ queryKey: ["maintenance"] }),
  });
  return (
    <section aria-labelledby="mw-h">
      <header className="page-head">
        <h1 id="mw-h">Maintenance windows</h1>
        <select aria-label="Show windows" value={state} onChange={(e) => setState(e.target.value)}>
          <option value="">All windows</option>
          {STATES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </header>
      {q.isPending ? (
        <Loading what="maintenance windows" />
      ) : q.isError ? (
        <ErrorMessage error={q.error} />
      ) : q.data.data.length === 0 ? (
        state ? (
          <p className="muted">No {state} window.</p>
        ) : (
          <EmptyState title="Planned work without false alarms">
            <p>During a maintenance window alerts about the covered monitors stay quiet (and, if you choose, their checks pause). Schedule one below — once, or repeating.</p>
          </EmptyState>
        )
      ) : (
        <ul className="cards">
          {q.data.data.map((w) => (
            <li key={w.id} className="card" data-window={w.name}>
              <div className="row">
                <strong>{w.name}</strong>
                <span className={`badge badge-${w.state === "active" ? "degraded" : w.state === "upcoming" ? "pending" : "paused"}`}>{w.state}</span>
              </div>
              <p>{describeTiming(w)}</p>
              <p className="muted">
                {w.state === "active" && w.current_ends_at && `Ends ${fmtTime(w.current_ends_at)}. `}
                {w.state === "upcoming" && w.next_starts_at && `Next starts ${fmtTime(w.next_starts_at)}. `}
                Covers {w.tags.length || w.monitor_ids.length ? [w.tags.length ? `tags ${w.tags.join(", ")}` : "", w.monitor_ids.length ? `${w.monitor_ids.length} picked monitor(s)` : ""].filter(Boolean).join(" and ") : "every monitor"}
                {" · "}
                {[w.suppress_alerts && "alerts silenced", w.pause_monitors && "checks paused"].filter(Boolean).join(", ") || "nothing suppressed"}
              </p>
              {w.description && <p>{w.description}</p>}
              <div className="row">
                <button onClick={() => setEditing(editing === w.id ? null : w.id)} aria-expanded={editing === w.id}>
                  Edit
                </button>
                <button className="danger" onClick={() => confirm(`Delete ${w.name}?`) && remove.mutate(w.id)}>
                  Delete
                </button>
              </div>
              {editing === w.id && <WindowForm window={w} onDone={() => setEditing(null)} />}
            </li>
          ))}
        </ul>
      )}
      <ErrorMessage error={remove.error} />
      <h2>Schedule maintenance</h2>
      <WindowForm />
    </section>
  );
}

/** A fresh form, with its choices reset, after each save. */
function WindowForm(props: { window?: Window; onDone?: () => void }) {
  const [round, setRound] = useState(0);
  return <WindowFormFields key={round} {...props} onSaved={() => setRound((r) => r + 1)} />;
}

function WindowFormFields({ window: w, onDone, onSaved }: { window?: Window; onDone?: () => void; onSaved: () => void }) {
  const qc = useQueryClient();
  const [kind, setKind] = useState<WindowKind>(w?.kind ?? "once");
  const initialPreset = w?.rrule ? (Object.entries(RRULE_PRESETS).find(([, v]) => v === w.rrule)?.[0] ?? "custom") : "weekly";
  const [preset, setPreset] = useState(initialPreset);
  const [zone, setZone] = useState(w?.timezone ?? browserZone);
  const [monitors, setMonitors] = useState<string[]>(w?.monitor_ids ?? []);
  const [preview, setPreview] = useState<number[] | null>(null);
  const save = useMutation({
    mutationFn: (f: FormData) => {
      const body = readWindowForm(f);
      if (w) return api.PATCH("/api/v1/maintenance-windows/{id}", { params: { path: { id: w.id } }, body });
      return api.POST("/api/v1/maintenance-windows", { body });
    },
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ["maintenance"] });
      onSaved();
      onDone?.();
    },
  });
  const issues = issuesOf(save.error);
  const uid = w?.id ?? "new-window";
  const refreshPreview = (form: HTMLFormElement) => {
    try {
      setPreview(upcomingStarts(readWindowForm(new FormData(form)), Date.now()));
    } catch {
      setPreview(null);
    }
  };
  return (
    <form
      className="stack"
      noValidate
      aria-label={w ? `Edit ${w.name}` : "New maintenance window"}
      onChange={(e) => refreshPreview(e.currentTarget)}
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(new FormData(e.currentTarget));
      }}
    >
      <Field label="Name" id={`${uid}-name`} name="name" required maxLength={200} defaultValue={w?.name} placeholder="Database upgrade" error={issues["body.name"]} />
      <Field label="Description (optional)" id={`${uid}-desc`} name="description" maxLength={2000} defaultValue={w?.description} />
      <fieldset>
        <legend>When</legend>
        {(["once", "rrule", "cron"] as const).map((k) => (
          <label key={k} className="inline">
            <input type="radio" name="kind" value={k} checked={kind === k} onChange={() => setKind(k)} /> {k === "once" ? "Once" : k === "rrule" ? "Repeating" : "Cron schedule"}
          </label>
        ))}
        <div className="field">
          <label htmlFor={`${uid}-zone`}>Time zone</label>
          <select id={`${uid}-zone`} name="timezone" value={zone} onChange={(e) => setZone(e.target.value)}>
            {(ZONES.includes(zone) ? ZONES : [zone, ...ZONES]).map((z) => (
              <option key={z}>{z}</option>
            ))}
          </select>
        </div>
        <div className="row">
          <Field
            label={kind === "once" ? "Starts" : kind === "rrule" ? "First occurrence starts" : "Not before (optional)"}
            id={`${uid}-start`}
            name="starts_at"
            type="datetime-local"
            defaultValue={localInput(zone, w?.starts_at)}
            error={issues["body.starts_at"]}
          />
          <Field label={kind === "once" ? "Ends" : "Repeat until (optional)"} id={`${uid}-end`} name="ends_at" type="datetime-local" defaultValue={localInput(zone, w?.ends_at)} error={issues["body.ends_at"]} />
        </div>
        {kind === "rrule" && (
          <>
            <div className="field">
              <label htmlFor={`${uid}-preset`}>Repeat</label>
              <select id={`${uid}-preset`} name="rrule_preset" value={preset} onChange={(e) => setPreset(e.target.value)}>
                <option value="daily">Every day at the start time</option>
                <option value="weekdays">Every weekday (Mon–Fri) at the start time</option>
                <option value="weekly">Every week on the start's weekday</option>
                <option value="monthly">Every month on the start's day</option>
                <option value="custom">Custom RRULE…</option>
              </select>
            </div>
            {preset === "custom" && (
              <Field label="RRULE" id={`${uid}-rrule`} name="rrule" defaultValue={w?.rrule ?? ""} placeholder="FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=0" hint="RFC 5545; read in the time zone above" error={issues["body.rrule"]} />
            )}
          </>
        )}
        {kind === "cron" && <Field label="Cron expression" id={`${uid}-cron`} name="cron" defaultValue={w?.cron ?? ""} placeholder="0 2 * * 0" hint="5 or 6 fields, in the time zone above" error={issues["body.cron"]} />}
        {kind !== "once" && (
          <Field label="Each occurrence lasts (minutes)" id={`${uid}-dur`} name="duration_minutes" type="number" min={1} max={44640} defaultValue={w?.duration_minutes ?? 60} error={issues["body.duration_minutes"]} />
        )}
        {preview && preview.length > 0 && (
          <p className="muted" role="status">
            Next starts (your local time): {preview.map((t) => fmtTime(t)).join(" · ")}
          </p>
        )}
      </fieldset>
      <fieldset>
        <legend>Which monitors</legend>
        <Field label="Monitors tagged (comma separated)" id={`${uid}-tags`} name="tags" defaultValue={w?.tags.join(", ")} hint="Leave tags and monitors empty to cover every monitor" />
        <MonitorPicker name="pick_monitor" label="Add a monitor" />
        <button
          type="button"
          onClick={(e) => {
            const picked = new FormData(e.currentTarget.form!).get("pick_monitor");
            if (picked && !monitors.includes(String(picked))) setMonitors([...monitors, String(picked)]);
          }}
        >
          Add picked monitor
        </button>
        {monitors.length > 0 && (
          <ul className="chips" aria-label="Monitors covered">
            {monitors.map((id) => (
              <li key={id}>
                <input type="hidden" name="monitor_ids" value={id} />
                <MonitorName id={id} />{" "}
                <button type="button" className="link" onClick={() => setMonitors(monitors.filter((m) => m !== id))} aria-label="Remove from window">
                  ✕
                </button>
              </li>
            ))}
          </ul>
        )}
        {issues["body.monitor_ids"] && <small className="field-error">{issues["body.monitor_ids"]}</small>}
      </fieldset>
      <fieldset>
        <legend>During the window</legend>
        <label className="inline">
          <input type="checkbox" name="suppress_alerts" defaultChecked={w?.suppress_alerts ?? true} /> Silence alerts
        </label>
        <label className="inline">
          <input type="checkbox" name="pause_monitors" defaultChecked={w?.pause_monitors ?? false} /> Pause checks (no results are recorded)
        </label>
      </fieldset>
      <ErrorMessage error={save.error} />
      <div className="row">
        <button className="primary" disabled={save.isPending}>
          {w ? "Save window" : "Schedule"}
        </button>
        {onDone && (
          <button type="button" onClick={onDone}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
