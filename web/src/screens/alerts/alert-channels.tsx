import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, data, type paths } from "../../api/client";
import { SchemaFields } from "../../components/schema-fields";
import { EmptyState, ErrorMessage, Field, issuesOf, Loading } from "../../components/ui";
import { useMyRole } from "../org/use-permissions";
import { readChannelForm, CHANNEL_HELP, CHANNEL_TYPES, channelFields, type ChannelType } from "./channel-body";
import { browserZone, MessageTemplateEditor, templateOf, type TemplateValue } from "./message-template-editor";

// The document types `config` per channel type; readChannelForm has built it from the chosen type's fields.
type CreateBody = paths["/api/v1/alert-channels"]["post"]["requestBody"]["content"]["application/json"];
type PatchBody = paths["/api/v1/alert-channels/{id}"]["patch"]["requestBody"]["content"]["application/json"];

type Channel = paths["/api/v1/alert-channels"]["get"]["responses"]["200"]["content"]["application/json"]["data"][number];

export function AlertChannels() {
  const qc = useQueryClient();
  const q = useQuery({ queryKey: ["alert-channels"], queryFn: () => api.GET("/api/v1/alert-channels", { params: { query: { limit: 100 } } }).then(data) });
  const [editing, setEditing] = useState<string | null>(null);
  // Adding, changing and test-sending need alerts:write; a viewer reads the list only.
  const { can, loading } = useMyRole();
  const writes = can("alerts:write");
  const [tested, setTested] = useState<Record<string, { ok: boolean; text: string }>>({});
  const test = useMutation({
    mutationFn: (id: string) => api.POST("/api/v1/alert-channels/{id}/test", { params: { path: { id } } }).then(data),
    onSuccess: (res, id) =>
      setTested((t) => ({
        ...t,
        [id]: res.ok
          ? { ok: true, text: `Test sent (${res.attempts.length} attempt${res.attempts.length === 1 ? "" : "s"})` }
          : { ok: false, text: `Test failed: ${res.error ?? res.attempts.at(-1)?.error ?? "no answer"}` },
      })),
  });
  const toggle = useMutation({
    mutationFn: (c: Channel) => api.PATCH("/api/v1/alert-channels/{id}", { params: { path: { id: c.id } }, body: { enabled: !c.enabled } }),
    onSettled: () => qc.invalidateQueries({ queryKey: ["alert-channels"] }),
  });
  const remove = useMutation({
    mutationFn: (id: string) => api.DELETE("/api/v1/alert-channels/{id}", { params: { path: { id } } }),
    onSettled: () => qc.invalidateQueries({ queryKey: ["alert-channels"] }),
  });
  if (q.isPending || loading) return <Loading what="channels" />;
  if (q.isError) return <ErrorMessage error={q.error} />;
  return (
    <section aria-labelledby="channels-h">
      <h1 id="channels-h">Alert channels</h1>
      <p className="muted">Where alerts go. Alert rules pick channels (with delays) or an escalation policy.</p>
      {q.data.data.length === 0 ? (
        <EmptyState title="Where should alerts go?">
          {writes ? (
            <p>Add an email address or a chat webhook below, then send a test to check it arrives. Rules can notify it next.</p>
          ) : (
            <p>None yet. Your role can see the channels but not add them; an owner, admin or member can.</p>
          )}
        </EmptyState>
      ) : (
        <ul className="cards">
          {q.data.data.map((c) => (
            <li key={c.id} className="card" data-channel={c.name}>
              <div className="row">
                <strong>{c.name}</strong> <span className="tag">{c.type}</span>
                {c.template && <span className="tag" title="This channel sends its own message template">custom message</span>}
                {!c.enabled && <span className="badge badge-paused">disabled</span>}
              </div>
              {writes && (
                <div className="row" role="group" aria-label={`Actions for ${c.name}`}>
                  <button onClick={() => test.mutate(c.id)} disabled={test.isPending && test.variables === c.id}>
                    {test.isPending && test.variables === c.id ? "Sending…" : "Send test"}
                  </button>
                  <button onClick={() => setEditing(editing === c.id ? null : c.id)} aria-expanded={editing === c.id}>
                    Edit
                  </button>
                  <button onClick={() => toggle.mutate(c)}>{c.enabled ? "Disable" : "Enable"}</button>
                  <button className="danger" onClick={() => confirm(`Delete ${c.name}? Rules lose this binding.`) && remove.mutate(c.id)}>
                    Delete
                  </button>
                  <span role="status" className={tested[c.id]?.ok === false ? "field-error" : ""}>
                    {tested[c.id]?.text}
                  </span>
                </div>
              )}
              {editing === c.id && <ChannelForm channel={c} onDone={() => setEditing(null)} />}
            </li>
          ))}
        </ul>
      )}
      <ErrorMessage error={test.error ?? remove.error ?? toggle.error} />
      {writes && (
        <>
          <h2>Add a channel</h2>
          <ChannelForm />
        </>
      )}
    </section>
  );
}

/** A fresh form, with its choices reset, after each save. */
function ChannelForm(props: { channel?: Channel; onDone?: () => void }) {
  const [round, setRound] = useState(0);
  return <ChannelFormFields key={round} {...props} onSaved={() => setRound((r) => r + 1)} />;
}

function ChannelFormFields({ channel, onDone, onSaved }: { channel?: Channel; onDone?: () => void; onSaved: () => void }) {
  const qc = useQueryClient();
  const [type, setType] = useState<ChannelType>((channel?.type as ChannelType) ?? "email");
  const [message, setMessage] = useState<TemplateValue>({
    title: channel?.template?.title ?? "",
    body: channel?.template?.body ?? "",
    timezone: channel?.timezone ?? browserZone(),
  });
  const save = useMutation({
    mutationFn: async (f: FormData) => {
      const body = { ...readChannelForm(type, f), template: templateOf(message), timezone: message.timezone.trim() };
      if (channel) return api.PATCH("/api/v1/alert-channels/{id}", { params: { path: { id: channel.id } }, body: body as PatchBody }).then(data);
      return api.POST("/api/v1/alert-channels", { body: body as CreateBody }).then(data);
    },
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ["alert-channels"] });
      onSaved();
      onDone?.();
    },
  });
  const issues = issuesOf(save.error);
  const prefix = channel ? `edit-${channel.id}` : "new";
  return (
    <form
      className="stack"
      noValidate
      aria-label={channel ? `Edit ${channel.name}` : "New channel"}
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(new FormData(e.currentTarget));
      }}
    >
      <div className="field">
        <label htmlFor={`${prefix}-type`}>Type</label>
        <select id={`${prefix}-type`} value={type} disabled={Boolean(channel)} onChange={(e) => setType(e.target.value as ChannelType)}>
          {CHANNEL_TYPES.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
        <small className="muted">{CHANNEL_HELP[type]}</small>
      </div>
      <Field label="Name" id={`${prefix}-name`} name="name" required maxLength={200} defaultValue={channel?.name} placeholder="On-call email" error={issues["body.name"]} />
      <SchemaFields key={type} fields={channelFields(type)} prefix="config" issuePrefix="body.config" value={channel?.type === type ? channel.config : undefined} issues={issues} />
      <MessageTemplateEditor prefix={prefix} type={type} value={message} onChange={setMessage} issues={issues} />
      {channel && <p className="muted">Secrets show masked (••••1234); leave them as they are to keep them.</p>}
      <ErrorMessage error={save.error} />
      <div className="row">
        <button className="primary" disabled={save.isPending}>
          {channel ? "Save channel" : "Add channel"}
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
