import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, data, type paths } from "../../api/client";
import { ErrorMessage, Field, issuesOf } from "../../components/ui";
import { FormIssuesError } from "../../lib/form-issues";

type Policy = paths["/api/v1/escalation-policies"]["get"]["responses"]["200"]["content"]["application/json"]["data"][number];
type Step = { delay_minutes: number; channel_ids: string[] };

/** Reads the steps; each step needs a channel, and delays must not go backwards. */
function readPolicySteps(f: FormData, count: number): { name: string; steps: Step[] } {
  const issues: { path: string; message: string }[] = [];
  const name = String(f.get("name") ?? "").trim();
  if (!name) issues.push({ path: "body.name", message: "is required" });
  const steps = Array.from({ length: count }, (_, i) => ({ delay_minutes: Number(f.get(`step.${i}.delay`) || 0), channel_ids: f.getAll(`step.${i}.channel`).map(String) }));
  steps.forEach((s, i) => {
    if (s.channel_ids.length === 0) issues.push({ path: `body.steps.${i}.channel_ids`, message: "pick at least one channel" });
    if (!Number.isInteger(s.delay_minutes) || s.delay_minutes < 0 || s.delay_minutes > 10_080) issues.push({ path: `body.steps.${i}.delay_minutes`, message: "must be 0 to 10080 minutes" });
    else if (i > 0 && s.delay_minutes < steps[i - 1]!.delay_minutes) issues.push({ path: `body.steps.${i}.delay_minutes`, message: "must not be earlier than the step before" });
  });
  if (issues.length) throw new FormIssuesError(issues);
  return { name, steps };
}

export function EscalationPolicies({ channels }: { channels: { id: string; name: string }[] }) {
  const qc = useQueryClient();
  const q = useQuery({ queryKey: ["escalation-policies"], queryFn: () => api.GET("/api/v1/escalation-policies", { params: { query: { limit: 100 } } }).then(data) });
  const [editing, setEditing] = useState<string | null>(null);
  const remove = useMutation({
    mutationFn: (id: string) => api.DELETE("/api/v1/escalation-policies/{id}", { params: { path: { id } } }),
    onSettled: () => qc.invalidateQueries({ queryKey: ["escalation-policies"] }),
  });
  const name = new Map(channels.map((c) => [c.id, c.name]));
  return (
    <section aria-labelledby="esc-h">
      <h2 id="esc-h">Escalation policies</h2>
      <p className="muted">A policy is a reusable chain: step 1 at once, step 2 if still unacknowledged after N minutes, and so on. Rules can follow a policy instead of listing channels.</p>
      {q.isError && <ErrorMessage error={q.error} />}
      <ul className="cards">
        {(q.data?.data ?? []).map((p) => (
          <li key={p.id} className="card">
            <strong>{p.name}</strong>
            <ol>
              {p.steps.map((s, i) => (
                <li key={i}>
                  {Number(s.delay_minutes) === 0 ? "At once" : `After ${String(s.delay_minutes)} min`}: {s.channel_ids.map((id) => name.get(id) ?? id).join(", ")}
                </li>
              ))}
            </ol>
            <div className="row">
              <button onClick={() => setEditing(editing === p.id ? null : p.id)} aria-expanded={editing === p.id}>
                Edit
              </button>
              <button className="danger" onClick={() => confirm(`Delete ${p.name}?`) && remove.mutate(p.id)}>
                Delete
              </button>
            </div>
            {editing === p.id && <PolicyForm policy={p} channels={channels} onDone={() => setEditing(null)} />}
          </li>
        ))}
      </ul>
      <ErrorMessage error={remove.error} />
      <h3>New escalation policy</h3>
      <PolicyForm channels={channels} />
    </section>
  );
}

/** A fresh form, with its choices reset, after each save. */
function PolicyForm(props: { policy?: Policy; channels: { id: string; name: string }[]; onDone?: () => void }) {
  const [round, setRound] = useState(0);
  return <PolicyFormFields key={round} {...props} onSaved={() => setRound((r) => r + 1)} />;
}

function PolicyFormFields({ policy, channels, onDone, onSaved }: { policy?: Policy; channels: { id: string; name: string }[]; onDone?: () => void; onSaved: () => void }) {
  const qc = useQueryClient();
  const [steps, setSteps] = useState(policy?.steps.length ?? 1);
  const save = useMutation({
    mutationFn: (f: FormData) => {
      const body = readPolicySteps(f, steps);
      if (policy) return api.PATCH("/api/v1/escalation-policies/{id}", { params: { path: { id: policy.id } }, body });
      return api.POST("/api/v1/escalation-policies", { body });
    },
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ["escalation-policies"] });
      onSaved();
      onDone?.();
    },
  });
  const issues = issuesOf(save.error);
  const uid = policy?.id ?? "new-policy";
  return (
    <form
      className="stack"
      noValidate
      aria-label={policy ? `Edit policy ${policy.name}` : "New escalation policy"}
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(new FormData(e.currentTarget));
      }}
    >
      <Field label="Policy name" id={`${uid}-name`} name="name" required defaultValue={policy?.name} error={issues["body.name"]} />
      {Array.from({ length: steps }, (_, i) => {
        const step = policy?.steps[i];
        return (
          <fieldset key={i}>
            <legend>Step {i + 1}</legend>
            <Field
              label="Minutes after the alert starts"
              id={`${uid}-step-${i}-delay`}
              name={`step.${i}.delay`}
              type="number"
              min={0}
              max={10080}
              defaultValue={step ? Number(step.delay_minutes) : i * 15}
              error={issues[`body.steps.${i}.delay_minutes`]}
            />
            {channels.length === 0 && <p className="muted">Add a channel first.</p>}
            {channels.map((c) => (
              <label key={c.id} className="inline">
                <input type="checkbox" name={`step.${i}.channel`} value={c.id} defaultChecked={step?.channel_ids.includes(c.id)} /> {c.name}
              </label>
            ))}
            {issues[`body.steps.${i}.channel_ids`] && <small className="field-error">{issues[`body.steps.${i}.channel_ids`]}</small>}
          </fieldset>
        );
      })}
      <div className="row">
        <button type="button" onClick={() => setSteps(Math.min(10, steps + 1))} disabled={steps >= 10}>
          Add step
        </button>
        {steps > 1 && (
          <button type="button" onClick={() => setSteps(steps - 1)}>
            Remove last step
          </button>
        )}
        <button className="primary" disabled={save.isPending}>
          {policy ? "Save policy" : "Create policy"}
        </button>
        {onDone && (
          <button type="button" onClick={onDone}>
            Cancel
          </button>
        )}
      </div>
      <ErrorMessage error={save.error} />
    </form>
  );
}
