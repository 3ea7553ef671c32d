import { useMutation, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { api, data, type paths } from "../../api/client";
import { MonitorPicker } from "../../components/monitor-picker";
import { SchemaFields } from "../../components/schema-fields";
import { EmptyState, ErrorMessage, Field, issuesOf, Loading } from "../../components/ui";
import { Link } from "../../lib/router";
import { EscalationPolicies } from "./escalation-policies";
import { CONDITION_LABELS, CONDITION_TYPES, conditionFields, describeRule, readRuleForm, type ConditionType } from "./rule-body";

type Rule = paths["/api/v1/alert-rules"]["get"]["responses"]["200"]["content"]["application/json"]["data"][number];
type Channel = { id: string; name: string; type: string; enabled: boolean };
type Policy = { id: string; name: string };

function useAlertLookups() {
  const channels = useQuery({ queryKey: ["alert-channels"], queryFn: () => api.GET("/api/v1/alert-channels", { params: { query: { limit: 100 } } }).then(data) });
  const policies = useQuery({ queryKey: ["escalation-policies"], queryFn: () => api.GET("/api/v1/escalation-policies", { params: { query: { limit: 100 } } }).then(data) });
  const names = useMemo(
    () => ({
      channels: new Map((channels.data?.data ?? []).map((c) => [c.id, c.name])),
      policies: new Map((policies.data?.data ?? []).map((p) => [p.id, p.name])),
    }),
    [channels.data, policies.data],
  );
  return { channels: (channels.data?.data ?? []) as Channel[], policies: (policies.data?.data ?? []) as Policy[], names };
}

export function AlertRules() {
  const qc = useQueryClient();
  const rules = useQuery({ queryKey: ["alert-rules"], queryFn: () => api.GET("/api/v1/alert-rules", { params: { query: { limit: 100 } } }).then(data) });
  const lookups = useAlertLookups();
  const [editing, setEditing] = useState<string | null>(null);
  // Names of the monitors single-monitor rules watch (cached per monitor, shared with other screens).
  const scoped = [...new Set((rules.data?.data ?? []).flatMap((r) => (r.scope.type === "monitor" ? [r.scope.monitor_id] : [])))];
  const monitors = useQueries({
    queries: scoped.map((id) => ({
      queryKey: ["monitor", id],
      staleTime: 60_000,
      retry: false,
      queryFn: () => api.GET("/api/v1/monitors/{id}", { params: { path: { id } } }).then(data),
    })),
  });
  const names = { ...lookups.names, monitors: new Map(monitors.flatMap((m) => (m.data ? [[m.data.id, m.data.name] as const] : []))) };
  const toggle = useMutation({
    mutationFn: (r: Rule) => api.PATCH("/api/v1/alert-rules/{id}", { params: { path: { id: r.id } }, body: { enabled: !r.enabled } }),
    onSettled: () => qc.invalidateQueries({ queryKey: ["alert-rules"] }),
  });
  const remove = useMutation({
    mutationFn: (id: string) => api.DELETE("/api/v1/alert-rules/{id}", { params: { path: { id } } }),
    onSettled: () => qc.invalidateQueries({ queryKey: ["alert-rules"] }),
  });
  if (rules.isPending) return <Loading what="alert rules" />;
  if (rules.isError) return <ErrorMessage error={rules.error} />;
  return (
    <section aria-labelledby="rules-h">
      <header className="page-head">
        <h1 id="rules-h">Alert rules</h1>
        <a href="#esc-h">Escalation policies</a>
      </header>
      {rules.data.data.length === 0 ? (
        <EmptyState title="No alert rules yet">
          <p>
            A rule says which monitors to watch, what counts as a problem, and who hears about it. Start with “every monitor goes down → email me”:
            {lookups.channels.length === 0 ? (
              <>
                {" "}
                first <Link to="/alert-channels">add a channel</Link>, then come back.
              </>
            ) : (
              " the form below is filled in for it."
            )}
          </p>
        </EmptyState>
      ) : (
        <ul className="cards">
          {rules.data.data.map((r) => (
            <li key={r.id} className="card" data-rule={r.name}>
              <div className="row">
                <strong>{r.name}</strong>
                {!r.enabled && <span className="badge badge-paused">disabled</span>}
              </div>
              <p className="muted">{describeRule(r, names)}</p>
              {r.description && <p>{r.description}</p>}
              <div className="row" role="group" aria-label={`Actions for ${r.name}`}>
                <button onClick={() => setEditing(editing === r.id ? null : r.id)} aria-expanded={editing === r.id}>
                  Edit
                </button>
                <button onClick={() => toggle.mutate(r)}>{r.enabled ? "Disable" : "Enable"}</button>
                <button className="danger" onClick={() => confirm(`Delete ${r.name}?`) && remove.mutate(r.id)}>
                  Delete
                </button>
              </div>
              {editing === r.id && <RuleForm rule={r} lookups={lookups} onDone={() => setEditing(null)} />}
            </li>
          ))}
        </ul>
      )}
      <ErrorMessage error={toggle.error ?? remove.error} />
      <h2>New rule</h2>
      <RuleForm lookups={lookups} />
      <EscalationPolicies channels={lookups.channels} />
    </section>
  );
}

/** A fresh form, with its choices reset, after each save. */
function RuleForm(props: { rule?: Rule; lookups: ReturnType<typeof useAlertLookups>; onDone?: () => void }) {
  const [round, setRound] = useState(0);
  return <RuleFormFields key={round} {...props} onSaved={() => setRound((r) => r + 1)} />;
}

function RuleFormFields({ rule, lookups, onDone, onSaved }: { rule?: Rule; lookups: ReturnType<typeof useAlertLookups>; onDone?: () => void; onSaved: () => void }) {
  const qc = useQueryClient();
  const [scope, setScope] = useState(String(rule?.scope.type ?? "all_monitors"));
  const [condition, setCondition] = useState<ConditionType>((rule?.condition.type as ConditionType) ?? "status_change");
  const [delivery, setDelivery] = useState(rule?.escalation_policy_id ? "policy" : "channels");
  const [recurring, setRecurring] = useState(rule?.notifications.recurring ?? false);
  const groups = useQuery({ queryKey: ["monitor-groups"], queryFn: () => api.GET("/api/v1/monitor-groups", { params: { query: { limit: 100 } } }).then(data), staleTime: 60_000 });
  const save = useMutation({
    mutationFn: async (f: FormData) => {
      const body = readRuleForm(f);
      if (rule) return api.PATCH("/api/v1/alert-rules/{id}", { params: { path: { id: rule.id } }, body: body as never }).then(data);
      return api.POST("/api/v1/alert-rules", { body: body as never }).then(data);
    },
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ["alert-rules"] });
      onSaved();
      onDone?.();
    },
  });
  const issues = issuesOf(save.error);
  const bound = new Map((rule?.channels ?? []).map((b) => [b.channel_id, Number(b.delay_minutes)]));
  const uid = rule?.id ?? "new";
  const enabledChannels = lookups.channels;
  return (
    <form
      className="stack"
      noValidate
      aria-label={rule ? `Edit rule ${rule.name}` : "New rule"}
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(new FormData(e.currentTarget));
      }}
    >
      <Field label="Rule name" id={`${uid}-name`} name="name" required maxLength={200} defaultValue={rule?.name} placeholder="Production down" error={issues["body.name"]} />
      <Field label="Description (optional)" id={`${uid}-desc`} name="description" maxLength={2000} defaultValue={rule?.description ?? ""} />
      <label className="inline">
        <input type="checkbox" name="enabled" defaultChecked={rule?.enabled ?? true} /> Enabled (a disabled rule keeps its settings but never fires)
      </label>

      <fieldset>
        <legend>Which monitors</legend>
        <div className="field">
          <label htmlFor={`${uid}-scope`}>Applies to</label>
          <select id={`${uid}-scope`} name="scope.type" value={scope} onChange={(e) => setScope(e.target.value)}>
            <option value="all_monitors">Every monitor, including ones added later</option>
            <option value="monitor_group">Monitors with a tag (a group)</option>
            <option value="monitor">One monitor</option>
          </select>
        </div>
        {scope === "monitor" && <MonitorPicker name="scope.monitor_id" label="Monitor" initialId={rule?.scope.type === "monitor" ? String(rule.scope.monitor_id) : undefined} error={issues["body.scope.monitor_id"]} />}
        {scope === "monitor_group" && (
          <>
            <Field label="Tag" id={`${uid}-tag`} name="scope.tag" list={`${uid}-tags`} required defaultValue={rule?.scope.type === "monitor_group" ? String(rule.scope.tag) : ""} error={issues["body.scope.tag"]} hint="Monitors tagged later are included too" />
            <datalist id={`${uid}-tags`}>
              {(groups.data?.data ?? []).map((g) => (
                <option key={g.tag} value={g.tag} />
              ))}
            </datalist>
          </>
        )}
      </fieldset>

      <fieldset>
        <legend>When to alert</legend>
        <div className="field">
          <label htmlFor={`${uid}-cond`}>Condition</label>
          <select id={`${uid}-cond`} name="condition.type" value={condition} onChange={(e) => setCondition(e.target.value as ConditionType)}>
            {CONDITION_TYPES.map((c) => (
              <option key={c} value={c}>
                {CONDITION_LABELS[c]}
              </option>
            ))}
          </select>
        </div>
        <SchemaFields
          key={condition}
          fields={conditionFields(condition)}
          prefix="condition"
          issuePrefix="body.condition"
          value={rule?.condition.type === condition ? rule.condition : condition === "status_change" ? { to: ["down", "timeout"] } : undefined}
          issues={issues}
        />
        <Field
          label="Consecutive failing checks before alerting"
          id={`${uid}-confirm`}
          name="confirmation.consecutive_failures"
          type="number"
          min={1}
          max={1000}
          defaultValue={Number(rule?.confirmation.consecutive_failures ?? 1)}
          hint="Counted per region; 2 or 3 rides out one-off blips"
          error={issues["body.confirmation.consecutive_failures"]}
        />
      </fieldset>

      <fieldset>
        <legend>Notifications</legend>
        <label className="inline">
          <input type="checkbox" name="notifications.on_recovery" defaultChecked={rule?.notifications.on_recovery ?? true} /> Send a recovery notice when it clears
        </label>
        <label className="inline">
          <input type="checkbox" name="notifications.recurring" checked={recurring} onChange={(e) => setRecurring(e.target.checked)} /> Remind while unacknowledged
        </label>
        {recurring && (
          <Field
            label="Remind every (minutes)"
            id={`${uid}-remind`}
            name="notifications.recurring_interval_minutes"
            type="number"
            min={1}
            max={10080}
            defaultValue={rule?.notifications.recurring_interval_minutes == null ? 60 : Number(rule.notifications.recurring_interval_minutes)}
            error={issues["body.notifications.recurring_interval_minutes"]}
          />
        )}
      </fieldset>

      <fieldset>
        <legend>Who hears about it</legend>
        <label className="inline">
          <input type="radio" name="delivery" value="channels" checked={delivery === "channels"} onChange={() => setDelivery("channels")} /> Channels, each after its own delay
        </label>
        <label className="inline">
          <input type="radio" name="delivery" value="policy" checked={delivery === "policy"} onChange={() => setDelivery("policy")} /> An escalation policy
        </label>
        {delivery === "channels" ? (
          <>
            {enabledChannels.length === 0 && (
              <p className="muted">
                No channel yet: <Link to="/alert-channels">add one</Link> first.
              </p>
            )}
            {enabledChannels.map((c) => (
              <div key={c.id} className="row binding">
                <label className="inline">
                  <input type="checkbox" name="channel_id" value={c.id} defaultChecked={bound.has(c.id) || (!rule && enabledChannels.length === 1)} /> {c.name} ({c.type}){!c.enabled && " — disabled"}
                </label>
                <Field label={`Delay for ${c.name} (minutes)`} id={`${uid}-delay-${c.id}`} name={`delay.${c.id}`} type="number" min={0} max={10080} defaultValue={bound.get(c.id) ?? 0} hint="0 = at once" />
              </div>
            ))}
            {issues["body.channels"] && <small className="field-error">{issues["body.channels"]}</small>}
          </>
        ) : (
          <div className="field">
            <label htmlFor={`${uid}-policy`}>Escalation policy</label>
            <select id={`${uid}-policy`} name="escalation_policy_id" defaultValue={rule?.escalation_policy_id ?? ""}>
              <option value="">Choose a policy</option>
              {lookups.policies.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
            {lookups.policies.length === 0 && <small className="muted">No policy yet: create one below.</small>}
            {issues["body.channels"] && <small className="field-error">{issues["body.channels"]}</small>}
          </div>
        )}
      </fieldset>
      <ErrorMessage error={save.error} />
      <div className="row">
        <button className="primary" disabled={save.isPending}>
          {rule ? "Save rule" : "Create rule"}
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
