import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState, type FocusEvent, type FormEvent } from "react";
import { api, data } from "../../api/client";
import { SchemaFields } from "../../components/schema-fields";
import { SuspendedBadge } from "../../components/widgets";
import { ErrorMessage, Field, issuesOf, Loading } from "../../components/ui";
import { FormIssuesError } from "../../lib/schema-form";
import { useRouter } from "../../lib/router";
import { CheckOutcome } from "./check-outcome";
import { HeartbeatFields } from "./heartbeat-fields";
import { assumeScheme, CHECK_LABELS, CHECK_TYPES, configFields, hostOf, monitorFieldLabels, readMonitorForm, targetFieldOf, type CheckType } from "./monitor-body";
import type { Monitor } from "./use-monitors";
import type { paths } from "../../api/schema.gen";

// The document types `config` per check type; readMonitorForm has checked it against the chosen type's schema.
type CreateBody = paths["/api/v1/monitors"]["post"]["requestBody"]["content"]["application/json"];
type PatchBody = paths["/api/v1/monitors/{id}"]["patch"]["requestBody"]["content"]["application/json"];
type TestBody = paths["/api/v1/monitors/test"]["post"]["requestBody"]["content"]["application/json"];

/** What the form proposes for a new monitor when the plan allows it (the API's own default, when a request names none, is 300 s). */
const DEFAULT_INTERVAL_S = 60;

export function MonitorEdit({ id }: { id: string }) {
  const q = useQuery({ queryKey: ["monitor", id], queryFn: () => api.GET("/api/v1/monitors/{id}", { params: { path: { id } } }).then(data) });
  if (q.isPending) return <Loading what="monitor" />;
  if (q.isError) return <ErrorMessage error={q.error} />;
  return <MonitorForm monitor={q.data as Monitor} />;
}

/**
 * Create (no monitor) or edit form for every check type; the settings come from the check type's schema.
 * What the monitor watches comes first; the name follows from its host until typed; "Test" runs the
 * check before saving; a created monitor's page then shows its first check (run at once by the scheduler).
 */
export function MonitorForm({ monitor }: { monitor?: Monitor }) {
  const { navigate, search } = useRouter();
  const qc = useQueryClient();
  const formRef = useRef<HTMLFormElement>(null);
  const [type, setType] = useState<CheckType>(monitor?.type ?? ((search.get("type") as CheckType | null) ?? "http"));
  const [name, setName] = useState(monitor?.name ?? "");
  // The name follows the address until the person types one of their own.
  const [nameTyped, setNameTyped] = useState(Boolean(monitor));
  const regions = useQuery({ queryKey: ["regions"], queryFn: () => api.GET("/api/v1/regions").then(data), staleTime: 300_000 });
  const runners = useQuery({ queryKey: ["runners"], queryFn: () => api.GET("/api/v1/runners", { params: { query: { limit: 100 } } }).then(data), staleTime: 60_000, retry: false });
  const entitlements = useQuery({ queryKey: ["entitlements"], queryFn: () => api.GET("/api/v1/entitlements").then(data), staleTime: 300_000 });
  const minInterval = Number(entitlements.data?.limits.min_interval_seconds ?? 10);
  const target = targetFieldOf(type);
  const save = useMutation({
    mutationFn: async (form: FormData) => {
      const { body, issues } = readMonitorForm(type, form, minInterval);
      if (issues.length) throw new FormIssuesError(issues);
      if (monitor) return api.PATCH("/api/v1/monitors/{id}", { params: { path: { id: monitor.id } }, body: body as PatchBody }).then(data);
      return api.POST("/api/v1/monitors", { body: body as CreateBody }).then(data);
    },
    onSuccess: (m) => {
      void qc.invalidateQueries({ queryKey: ["monitors"] });
      qc.setQueryData(["monitor", m.id], m);
      // A new monitor's page shows its first check as it comes in (the success state); an edit goes back to it.
      navigate(monitor || m.type === "heartbeat" ? `/monitors/${m.id}` : `/monitors/${m.id}?created=${encodeURIComponent(m.created_at)}`);
    },
  });
  const test = useMutation({
    mutationFn: async (form: FormData) => {
      const { body, issues } = readMonitorForm(type, form, minInterval);
      // The name does not matter to a test.
      const relevant = issues.filter((i) => i.path !== "body.name");
      if (relevant.length) throw new FormIssuesError(relevant);
      const { name: _n, tags: _t, paused: _p, ...rest } = body;
      return api.POST("/api/v1/monitors/test", { body: rest as TestBody }).then(data);
    },
  });
  const labels = monitorFieldLabels(type);
  // Whichever ran last names the issues next to the fields.
  const failed = test.error ?? save.error;
  const onTargetChange = (e: FormEvent<HTMLFormElement>) => {
    const input = e.target;
    if (!(input instanceof HTMLInputElement)) return;
    if (!nameTyped && target && input.name === `config.${target}`) setName(hostOf(input.value));
  };
  const onTargetBlur = (e: FocusEvent<HTMLFormElement>) => {
    const input = e.target;
    if (!(input instanceof HTMLInputElement)) return;
    // `example.com` means https://example.com: shown as it will be checked.
    if (input.name === "config.url" && input.value.trim()) input.value = assumeScheme(input.value);
  };
  const issues = issuesOf(failed);
  const config = (monitor?.config ?? {}) as Record<string, unknown>;
  const runnerList = (runners.data?.data ?? []).filter((r) => r.status !== "revoked");
  // The plan's minimum interval is the default, so a first monitor saves without an error.
  if (entitlements.isPending) return <Loading what="your plan" />;
  const inbound = type === "heartbeat";
  return (
    <section aria-labelledby="form-h">
      <h1 id="form-h">{monitor ? `Edit ${monitor.name}` : "New monitor"}</h1>
      <form
        ref={formRef}
        className="stack"
        noValidate
        onChange={onTargetChange}
        onBlur={onTargetBlur}
        onSubmit={(e) => {
          e.preventDefault();
          test.reset();
          save.mutate(new FormData(e.currentTarget));
        }}
      >
        <div className="field">
          <label htmlFor="check-type">Check type</label>
          <select id="check-type" value={type} disabled={Boolean(monitor)} onChange={(e) => setType(e.target.value as CheckType)} aria-describedby="check-type-hint">
            {CHECK_TYPES.map((t) => (
              <option key={t} value={t}>
                {CHECK_LABELS[t]}
              </option>
            ))}
          </select>
          {monitor && (
            <small id="check-type-hint" className="muted">
              The type of an existing monitor cannot change; create a new monitor instead.
            </small>
          )}
        </div>
        {/* What it watches first (keyed by type: switching type starts from that type's defaults), then its name, then the rest. */}
        {type === "heartbeat" ? (
          <>
            <NameField name={name} setName={setName} setTyped={setNameTyped} error={issues["body.name"]} hint={undefined} />
            <HeartbeatFields value={monitor?.type === type ? config : undefined} issues={issues} />
          </>
        ) : (
          <>
            <SchemaFields key={`${type}-required`} fields={configFields(type).filter((f) => f.required)} prefix="config" issuePrefix="body.config" value={monitor?.type === type ? config : undefined} issues={issues} />
            <NameField name={name} setName={setName} setTyped={setNameTyped} error={issues["body.name"]} hint={target && !monitor ? `Taken from the ${target === "url" ? "address's host" : target} until you type one` : undefined} />
            <SchemaFields key={`${type}-optional`} fields={configFields(type).filter((f) => !f.required)} prefix="config" issuePrefix="body.config" value={monitor?.type === type ? config : undefined} issues={issues} />
          </>
        )}
        {/* A heartbeat has no interval: its period or schedule says when a ping is due (the sweep runs every 5 s). */}
        {!inbound && (
          <div className="row">
            <Field
              // A new monitor's proposal follows the plan's minimum, known once the entitlements arrive.
              key={monitor || entitlements.data ? "known" : "loading"}
              label="Check every (seconds)"
              name="interval_seconds"
              type="number"
              min={minInterval}
              max={86400}
              defaultValue={Number(monitor?.interval_seconds ?? Math.max(DEFAULT_INTERVAL_S, minInterval))}
              hint={entitlements.data?.billing_enabled === false ? `Every ${minInterval} s or more` : `Your plan allows every ${minInterval} s or more`}
              error={issues["body.interval_seconds"]}
            />
            <Field label="Timeout (ms)" name="timeout_ms" type="number" min={100} max={120000} defaultValue={Number(monitor?.timeout_ms ?? 10000)} hint="At most the interval" error={issues["body.timeout_ms"]} />
          </div>
        )}
        <Field label="Tags (comma separated)" name="tags" defaultValue={monitor?.tags.join(", ")} placeholder="production, api" hint="Each tag is a monitor group" error={issues["body.tags"]} />
        {!inbound && (regions.data?.data.length ?? 0) > 0 && (
          <fieldset aria-describedby="regions-hint">
            <legend>Check from these regions</legend>
            <input type="hidden" name="has_regions" value="1" />
            {regions.data!.data.map((r) => (
              <label key={r.id} className="inline">
                <input type="checkbox" name="regions" value={r.id} defaultChecked={monitor ? monitor.regions.includes(r.id) : r.id === regions.data!.data[0]!.id} /> {r.city} ({r.id})
                {r.status === "offline" && <span className="muted"> offline</span>}
              </label>
            ))}
            <small id="regions-hint" className="muted">
              {entitlements.data?.billing_enabled === false
                ? "These regions check from this installation's own servers, so they may reach your network (unless its administrator turned that off)."
                : "Cloud regions reach public addresses only."}{" "}
              {issues["body.regions"] && <span className="field-error">{issues["body.regions"]}</span>}
            </small>
          </fieldset>
        )}
        {!inbound && runnerList.length > 0 && (
          <fieldset>
            <legend>…or from your self-hosted runners</legend>
            <input type="hidden" name="has_runners" value="1" />
            {runnerList.map((r) => (
              <label key={r.id} className="inline">
                <input type="checkbox" name="runner_ids" value={r.id} defaultChecked={monitor?.runner_ids.includes(r.id)} /> {r.name} {r.location_label ? `(${r.location_label})` : ""}
                <span className="muted"> {r.status}</span>
                {r.suspended && <SuspendedBadge what="runner" />}
              </label>
            ))}
            {issues["body.runner_ids"] && <small className="field-error">{issues["body.runner_ids"]}</small>}
          </fieldset>
        )}
        {inbound && !monitor && <p className="muted">After saving, the monitor page shows the URL your job should call.</p>}
        {!monitor && (
          <label className="inline">
            <input type="checkbox" name="paused" /> Start paused (nothing is checked until you resume it)
          </label>
        )}
        <ErrorMessage error={failed} labels={labels} />
        {test.data && !test.isPending && (
          <div role="status" aria-label="Test result">
            <p className="muted">Tested now (nothing was saved):</p>
            <CheckOutcome result={test.data} />
          </div>
        )}
        {test.isPending && (
          <p role="status" className="muted">
            Running the check…
          </p>
        )}
        <div className="row">
          <button className="primary" disabled={save.isPending}>
            {save.isPending ? "Saving…" : monitor ? "Save changes" : "Create monitor"}
          </button>
          {!inbound && !monitor && (
            <button
              type="button"
              disabled={test.isPending}
              onClick={() => {
                save.reset();
                if (formRef.current) test.mutate(new FormData(formRef.current));
              }}
            >
              {test.isPending ? "Testing…" : "Test"}
            </button>
          )}
          <button type="button" onClick={() => history.back()}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}

/** The monitor's name: filled from what it watches until the person types their own. */
function NameField({ name, setName, setTyped, error, hint }: { name: string; setName: (v: string) => void; setTyped: (v: boolean) => void; error?: string; hint?: string }) {
  return (
    <Field
      label="Name"
      name="name"
      // Optional where it follows the address (the hint says so).
      required={!hint}
      maxLength={200}
      value={name}
      onChange={(e) => {
        setName(e.target.value);
        // Cleared, it follows the address again.
        setTyped(e.target.value.trim() !== "");
      }}
      placeholder="Homepage"
      hint={hint}
      error={error}
    />
  );
}
