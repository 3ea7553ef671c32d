import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, data } from "../../api/client";
import { EmptyState, ErrorMessage, Field, Loading, Select } from "../../components/ui";

type Condition = "status_change" | "metric_threshold" | "ssl_expiry" | "domain_expiry" | "keyword_missing" | "certificate_changed" | "monitoring_unavailable";

/** Reads each condition type's own fields from the form. */
const CONDITIONS = {
  status_change: (f: FormData) => ({ to: f.getAll("to").map(String) }),
  metric_threshold: (f: FormData) => ({ metric: String(f.get("metric")), operator: String(f.get("operator")), threshold: Number(f.get("threshold")) }),
  ssl_expiry: (f: FormData) => ({ days_before: Number(f.get("days_before")) }),
  domain_expiry: (f: FormData) => ({ days_before: Number(f.get("days_before")) }),
  keyword_missing: (f: FormData) => ({ keyword: String(f.get("keyword")) }),
  certificate_changed: () => ({}),
  monitoring_unavailable: () => ({}),
} satisfies Record<Condition, (f: FormData) => object>;

export function AlertRules() {
  const qc = useQueryClient();
  const rules = useQuery({ queryKey: ["alert-rules"], queryFn: () => api.GET("/api/v1/alert-rules", { params: { query: { limit: 100 } } }).then(data) });
  const channels = useQuery({ queryKey: ["alert-channels"], queryFn: () => api.GET("/api/v1/alert-channels", { params: { query: { limit: 100 } } }).then(data) });
  const policies = useQuery({ queryKey: ["escalation-policies"], queryFn: () => api.GET("/api/v1/escalation-policies", { params: { query: { limit: 100 } } }).then(data) });
  const [scope, setScope] = useState("all_monitors");
  const [condition, setCondition] = useState<Condition>("status_change");
  const create = useMutation({
    mutationFn: (f: FormData) => {
      const channelIds = f.getAll("channel_id").map(String);
      const policy = String(f.get("escalation_policy_id") ?? "");
      const body = {
        name: String(f.get("name")),
        scope: scope === "monitor" ? { type: scope, monitor_id: String(f.get("monitor_id")) } : scope === "monitor_group" ? { type: scope, tag: String(f.get("tag")) } : { type: scope },
        condition: { type: condition, ...CONDITIONS[condition](f) },
        confirmation: { consecutive_failures: Number(f.get("consecutive_failures") || 1) },
        notifications: { on_recovery: f.get("on_recovery") === "on", recurring: Boolean(f.get("recurring_interval_minutes")), recurring_interval_minutes: f.get("recurring_interval_minutes") ? Number(f.get("recurring_interval_minutes")) : null },
        ...(policy ? { escalation_policy_id: policy } : { channels: channelIds.map((id) => ({ channel_id: id, delay_minutes: Number(f.get(`delay_${id}`) || 0) })) }),
      };
      return api.POST("/api/v1/alert-rules", { body });
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: ["alert-rules"] }),
  });
  const remove = useMutation({ mutationFn: (id: string) => api.DELETE("/api/v1/alert-rules/{id}", { params: { path: { id } } }), onSettled: () => qc.invalidateQueries({ queryKey: ["alert-rules"] }) });
  if (rules.isPending) return <Loading what="alert rules" />;
  if (rules.isError) return <ErrorMessage error={rules.error} />;
  return (
    <section aria-labelledby="rules-h">
      <h1 id="rules-h">Alert rules</h1>
      {rules.data.data.length === 0 ? (
        <EmptyState title="No alert rules yet">
          <p>A rule says which monitors to watch, what counts as a problem, and who hears about it. Start with “any monitor goes down → email me”.</p>
        </EmptyState>
      ) : (
        <ul className="cards">
          {rules.data.data.map((r) => (
            <li key={r.id} className="card">
              <strong>{r.name}</strong> <span className="tag">{String((r.condition as { type?: string }).type)}</span>
              <button className="danger" onClick={() => confirm(`Delete ${r.name}?`) && remove.mutate(r.id)}>
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
      <h2>New rule</h2>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate(new FormData(e.currentTarget));
        }}
      >
        <Field label="Name" name="name" required placeholder="Production down" />
        <Select label="Applies to" value={scope} onChange={(e) => setScope(e.target.value)}>
          <option value="all_monitors">All monitors</option>
          <option value="monitor_group">A monitor group (tag)</option>
          <option value="monitor">One monitor</option>
        </Select>
        {scope === "monitor" && <Field label="Monitor id" name="monitor_id" required />}
        {scope === "monitor_group" && <Field label="Tag" name="tag" required />}
        <Select label="Condition" value={condition} onChange={(e) => setCondition(e.target.value as Condition)}>
          {Object.keys(CONDITIONS).map((c) => (
            <option key={c}>{c}</option>
          ))}
        </Select>
        {condition === "status_change" && (
          <fieldset>
            <legend>Alert when the status becomes</legend>
            {["down", "timeout", "degraded"].map((s) => (
              <label key={s} className="inline">
                <input type="checkbox" name="to" value={s} defaultChecked={s !== "degraded"} /> {s}
              </label>
            ))}
          </fieldset>
        )}
        {condition === "metric_threshold" && (
          <div className="row">
            <Field label="Metric" name="metric" defaultValue="response_time_ms" required />
            <Select label="Operator" name="operator">
              {["gt", "gte", "lt", "lte", "eq", "neq"].map((o) => (
                <option key={o}>{o}</option>
              ))}
            </Select>
            <Field label="Threshold" name="threshold" type="number" required />
          </div>
        )}
        {(condition === "ssl_expiry" || condition === "domain_expiry") && <Field label="Days before expiry" name="days_before" type="number" min={1} defaultValue={14} required />}
        {condition === "keyword_missing" && <Field label="Keyword" name="keyword" required />}
        <Field label="Consecutive failures before alerting" name="consecutive_failures" type="number" min={1} max={1000} defaultValue={1} />
        <label className="inline">
          <input type="checkbox" name="on_recovery" defaultChecked /> Notify on recovery
        </label>
        <Field label="Remind every (minutes, optional)" name="recurring_interval_minutes" type="number" min={1} />
        <fieldset>
          <legend>Notify these channels</legend>
          {(channels.data?.data ?? []).length === 0 && <p className="muted">Add a channel first under Channels.</p>}
          {(channels.data?.data ?? []).map((c) => (
            <div key={c.id} className="row">
              <label className="inline">
                <input type="checkbox" name="channel_id" value={c.id} /> {c.name} ({c.type})
              </label>
              <Field label={`Delay for ${c.name} (minutes)`} name={`delay_${c.id}`} type="number" min={0} defaultValue={0} />
            </div>
          ))}
        </fieldset>
        <Select label="…or follow an escalation policy" name="escalation_policy_id" defaultValue="">
          <option value="">(none)</option>
          {(policies.data?.data ?? []).map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </Select>
        <ErrorMessage error={create.error ?? remove.error} />
        <button className="primary" disabled={create.isPending}>
          Create rule
        </button>
      </form>
      <EscalationPolicies channels={channels.data?.data ?? []} />
    </section>
  );
}

function EscalationPolicies({ channels }: { channels: { id: string; name: string }[] }) {
  const qc = useQueryClient();
  const [steps, setSteps] = useState(1);
  const create = useMutation({
    mutationFn: (f: FormData) =>
      api.POST("/api/v1/escalation-policies", {
        body: {
          name: String(f.get("name")),
          steps: Array.from({ length: steps }, (_, i) => ({ delay_minutes: Number(f.get(`step_${i}_delay`) || 0), channel_ids: f.getAll(`step_${i}_channel`).map(String) })),
        },
      }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ["escalation-policies"] }),
  });
  return (
    <section aria-labelledby="esc-h">
      <h2 id="esc-h">New escalation policy</h2>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate(new FormData(e.currentTarget));
        }}
      >
        <Field label="Policy name" name="name" required />
        {Array.from({ length: steps }, (_, i) => (
          <fieldset key={i}>
            <legend>Step {i + 1}</legend>
            <Field label="Minutes after the alert starts" name={`step_${i}_delay`} type="number" min={0} defaultValue={i * 15} />
            {channels.map((c) => (
              <label key={c.id} className="inline">
                <input type="checkbox" name={`step_${i}_channel`} value={c.id} /> {c.name}
              </label>
            ))}
          </fieldset>
        ))}
        <div className="row">
          <button type="button" onClick={() => setSteps(Math.min(10, steps + 1))}>
            Add step
          </button>
          <button className="primary" disabled={create.isPending}>
            Create policy
          </button>
        </div>
        <ErrorMessage error={create.error} />
      </form>
    </section>
  );
}
