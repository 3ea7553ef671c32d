import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, ApiError, data } from "../../api/client";
import { ErrorMessage, Field, Loading, Select } from "../../components/ui";
import { useRouter } from "../../lib/router";
import { CHECK_FIELDS, CHECK_TYPES, readConfig, type CheckType, type ConfigField } from "./check-fields";
import type { Monitor } from "./use-monitors";

const CHECKED_BY_DEFAULT = new Set(["follow_redirects"]);

export function MonitorEdit({ id }: { id: string }) {
  const q = useQuery({ queryKey: ["monitor", id], queryFn: () => api.GET("/api/v1/monitors/{id}", { params: { path: { id } } }).then(data) });
  if (q.isPending) return <Loading what="monitor" />;
  if (q.isError) return <ErrorMessage error={q.error} />;
  return <MonitorForm monitor={q.data as Monitor} />;
}

/** Create (no monitor) or edit form for every check type. */
export function MonitorForm({ monitor }: { monitor?: Monitor }) {
  const { navigate } = useRouter();
  const qc = useQueryClient();
  const [type, setType] = useState<CheckType>(monitor?.type ?? "http");
  const regions = useQuery({ queryKey: ["regions"], queryFn: () => api.GET("/api/v1/regions").then(data), staleTime: 300_000 });
  const entitlements = useQuery({ queryKey: ["entitlements"], queryFn: () => api.GET("/api/v1/entitlements").then(data), staleTime: 300_000 });
  const minInterval = Number(entitlements.data?.limits.min_interval_seconds ?? 10);
  const save = useMutation({
    mutationFn: async (form: FormData) => {
      const values = Object.fromEntries(form) as Record<string, FormDataEntryValue>;
      const body = {
        name: String(values.name),
        type,
        config: readConfig(type, values),
        interval_seconds: Number(values.interval_seconds),
        timeout_ms: Number(values.timeout_ms),
        tags: String(values.tags ?? "").split(",").map((t) => t.trim()).filter(Boolean),
        ...(form.getAll("regions").length ? { regions: form.getAll("regions").map(String) } : {}),
      };
      if (monitor) return api.PATCH("/api/v1/monitors/{id}", { params: { path: { id: monitor.id } }, body }).then(data);
      return api.POST("/api/v1/monitors", { body }).then(data);
    },
    onSuccess: (m) => {
      void qc.invalidateQueries({ queryKey: ["monitors"] });
      qc.setQueryData(["monitor", m.id], m);
      navigate(`/monitors/${m.id}`);
    },
  });
  const issues = save.error instanceof ApiError ? save.error.issues : {};
  const config = (monitor?.config ?? {}) as Record<string, unknown>;
  const regionList = (regions.data?.data ?? []).map((r) => r.id);
  // The plan's minimum interval is the default, so a first monitor saves without an error.
  if (entitlements.isPending) return <Loading what="your plan" />;
  return (
    <section aria-labelledby="form-h">
      <h1 id="form-h">{monitor ? `Edit ${monitor.name}` : "New monitor"}</h1>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate(new FormData(e.currentTarget));
        }}
      >
        <Select label="Check type" value={type} disabled={Boolean(monitor)} onChange={(e) => setType(e.target.value as CheckType)}>
          {CHECK_TYPES.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </Select>
        <Field label="Name" name="name" required maxLength={200} defaultValue={monitor?.name} placeholder="Homepage" error={issues["body.name"]} />
        {(CHECK_FIELDS[type] as ConfigField[]).map((f) => (
          <ConfigInput key={`${type}-${f.key}`} field={f} value={config[f.key]} error={issues[`body.config.${f.key}`]} />
        ))}
        <div className="row">
          <Field label="Check every (seconds)" name="interval_seconds" type="number" min={minInterval} max={86400} defaultValue={Number(monitor?.interval_seconds ?? Math.max(60, minInterval))} hint={`Your plan allows every ${minInterval} s or more`} error={issues["body.interval_seconds"]} />
          <Field label="Timeout (ms)" name="timeout_ms" type="number" min={100} max={120000} defaultValue={Number(monitor?.timeout_ms ?? 10000)} error={issues["body.timeout_ms"]} />
        </div>
        <Field label="Tags (comma separated)" name="tags" defaultValue={monitor?.tags.join(", ")} placeholder="production, api" />
        {regionList.length > 1 && (
          <fieldset>
            <legend>Regions</legend>
            {regionList.map((r) => (
              <label key={r} className="inline">
                <input type="checkbox" name="regions" value={r} defaultChecked={monitor?.regions.includes(r)} /> {r}
              </label>
            ))}
          </fieldset>
        )}
        <ErrorMessage error={save.error} />
        <div className="row">
          <button className="primary" disabled={save.isPending}>
            {save.isPending ? "Saving…" : monitor ? "Save changes" : "Create monitor"}
          </button>
          <button type="button" onClick={() => history.back()}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}

function ConfigInput({ field: f, value, error }: { field: ConfigField; value: unknown; error?: string }) {
  const name = f.key;
  if (f.kind === "checkbox")
    return (
      <label className="inline">
        <input type="checkbox" name={name} defaultChecked={value === undefined ? CHECKED_BY_DEFAULT.has(name) : Boolean(value)} /> {f.label}
      </label>
    );
  if (f.kind === "select")
    return (
      <Select label={f.label} name={name} defaultValue={value == null ? undefined : String(value)} required={f.required}>
        {!f.required && <option value="">(default)</option>}
        {f.options!.map((o) => (
          <option key={o}>{o}</option>
        ))}
      </Select>
    );
  const shown = value == null ? undefined : f.kind === "json" ? JSON.stringify(value) : String(value);
  return <Field label={f.label} name={name} type={f.kind === "number" ? "number" : "text"} required={f.required} placeholder={f.placeholder} hint={f.hint} defaultValue={shown} error={error} />;
}
