import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, data } from "../../api/client";
import { EmptyState, ErrorMessage, Field, Loading, Select } from "../../components/ui";

type ChannelType = "email" | "slack" | "discord" | "teams" | "telegram" | "webhook" | "pagerduty" | "opsgenie";

/** Example config per channel type, shown as the placeholder of the config editor. */
const EXAMPLES = {
  email: { to: ["oncall@example.com"] },
  slack: { url: "https://hooks.slack.com/services/…" },
  discord: { url: "https://discord.com/api/webhooks/<id>/<token>" },
  teams: { url: "https://…/workflows/…" },
  telegram: { bot_token: "123456:ABC…", chat_id: -1001234567890 },
  webhook: { url: "https://example.com/hooks/watchpost", secret: "at-least-16-characters" },
  pagerduty: { routing_key: "32-character integration key", severity: "critical" },
  opsgenie: { api_key: "…", region: "eu" },
} satisfies Record<ChannelType, object>;

export function AlertChannels() {
  const qc = useQueryClient();
  const q = useQuery({ queryKey: ["alert-channels"], queryFn: () => api.GET("/api/v1/alert-channels", { params: { query: { limit: 100 } } }).then(data) });
  const [type, setType] = useState<ChannelType>("email");
  const [tested, setTested] = useState<Record<string, string>>({});
  const create = useMutation({
    mutationFn: (f: FormData) => {
      const config = JSON.parse(String(f.get("config") || "{}")) as Record<string, unknown>;
      return api.POST("/api/v1/alert-channels", { body: { name: String(f.get("name")), type, config } });
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: ["alert-channels"] }),
  });
  const test = useMutation({
    mutationFn: (id: string) => api.POST("/api/v1/alert-channels/{id}/test", { params: { path: { id } } }).then(data),
    onSuccess: (res, id) =>
      setTested((t) => ({ ...t, [id]: res.ok ? `Test sent (${res.attempts.length} attempt${res.attempts.length === 1 ? "" : "s"})` : `Test failed: ${res.error ?? res.attempts.at(-1)?.error ?? "no answer"}` })),
  });
  const remove = useMutation({ mutationFn: (id: string) => api.DELETE("/api/v1/alert-channels/{id}", { params: { path: { id } } }), onSettled: () => qc.invalidateQueries({ queryKey: ["alert-channels"] }) });
  if (q.isPending) return <Loading what="channels" />;
  if (q.isError) return <ErrorMessage error={q.error} />;
  return (
    <section aria-labelledby="channels-h">
      <h1 id="channels-h">Alert channels</h1>
      {q.data.data.length === 0 ? (
        <EmptyState title="Where should alerts go?">
          <p>Add an email address or a chat webhook below, then send a test to check it arrives.</p>
        </EmptyState>
      ) : (
        <ul className="cards">
          {q.data.data.map((c) => (
            <li key={c.id} className="card">
              <strong>{c.name}</strong> <span className="tag">{c.type}</span>
              <div className="row">
                <button onClick={() => test.mutate(c.id)}>Send test</button>
                <button className="danger" onClick={() => confirm(`Delete ${c.name}?`) && remove.mutate(c.id)}>
                  Delete
                </button>
                <span role="status">{tested[c.id]}</span>
              </div>
            </li>
          ))}
        </ul>
      )}
      <ErrorMessage error={test.error ?? remove.error} />
      <h2>Add a channel</h2>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate(new FormData(e.currentTarget));
        }}
      >
        <Select label="Type" value={type} onChange={(e) => setType(e.target.value as ChannelType)}>
          {Object.keys(EXAMPLES).map((t) => (
            <option key={t}>{t}</option>
          ))}
        </Select>
        <Field label="Name" name="name" required maxLength={200} placeholder="On-call email" />
        <div className="field">
          <label htmlFor="channel-config">Settings (JSON)</label>
          <textarea id="channel-config" name="config" rows={4} required placeholder={JSON.stringify(EXAMPLES[type], null, 2)} />
        </div>
        <ErrorMessage error={create.error} />
        <button className="primary" disabled={create.isPending}>
          Add channel
        </button>
      </form>
    </section>
  );
}
