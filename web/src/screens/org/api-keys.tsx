import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, data } from "../../api/client";
import { fmtAgo } from "../../components/format";
import { ConfirmButton, SecretOnce } from "../../components/widgets";
import { EmptyState, ErrorMessage, Field, fmtTime, Loading } from "../../components/ui";
import { OrgNav } from "./org-nav";
import { PrometheusScrape } from "./prometheus-scrape";
import { permissionLabel } from "./roles";
import { useMyRole } from "./use-permissions";

/** API keys of the organisation: a new key is shown once; its scopes never exceed your role. */
export function ApiKeys() {
  const qc = useQueryClient();
  // Managing keys takes api_keys:write; without it the API answers 403, so do not ask.
  const { can, loading } = useMyRole();
  const manages = can("api_keys:write");
  const keys = useQuery({ queryKey: ["api-keys"], enabled: manages, queryFn: () => api.GET("/api/v1/api-keys", { params: { query: { limit: 100 } } }).then(data) });
  const scopes = useQuery({ queryKey: ["api-keys", "scopes"], enabled: manages, queryFn: () => api.GET("/api/v1/api-keys/scopes").then(data) });
  const members = useQuery({ queryKey: ["org", "members"], queryFn: () => api.GET("/api/v1/org/members", { params: { query: { limit: 100 } } }).then(data) });
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [picked, setPicked] = useState<string[]>([]);
  const create = useMutation({
    mutationFn: (body: { name: string; scopes: string[]; expires_at?: string }) => api.POST("/api/v1/api-keys", { body: body as never }).then(data),
    onSuccess: (k) => {
      setCreated({ name: k.name, key: k.key });
      setPicked([]);
      void qc.invalidateQueries({ queryKey: ["api-keys"] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api.DELETE("/api/v1/api-keys/{id}", { params: { path: { id } } }),
    onSettled: () => qc.invalidateQueries({ queryKey: ["api-keys"] }),
  });
  if (loading) return <Loading what="your role" />;
  if (!manages) {
    return (
      <section aria-labelledby="keys-h">
        <h1 id="keys-h">Organisation</h1>
        <OrgNav />
        <h2>API keys</h2>
        <p>Your role cannot manage API keys (it needs “API keys: manage”).</p>
        <PrometheusScrape />
      </section>
    );
  }
  if (keys.isPending || scopes.isPending) return <Loading what="API keys" />;
  const error = keys.error ?? scopes.error;
  if (error || !keys.data || !scopes.data) return <ErrorMessage error={error} />;
  const who = new Map((members.data?.data ?? []).map((m) => [m.user_id, m.name]));
  const grantable = scopes.data.data;
  const adminPicked = picked.includes("org:admin");
  return (
    <section aria-labelledby="keys-h">
      <h1 id="keys-h">Organisation</h1>
      <OrgNav />
      <h2 id="keys-list-h">API keys</h2>
      <p className="muted">
        Send a key as <code>Authorization: Bearer &lt;key&gt;</code>. Each key belongs to this organisation and can do only what its scopes and its creator's role both allow.
      </p>
      {created && (
        <SecretOnce label={`API key ${created.name}`} value={created.key}>
          <button type="button" onClick={() => setCreated(null)}>
            I have saved the key
          </button>
        </SecretOnce>
      )}
      {keys.data.data.length === 0 ? (
        <EmptyState title="No API keys">
          <p>Create a key for scripts, CI or Terraform. Give it only the scopes it needs.</p>
        </EmptyState>
      ) : (
        <table className="table" aria-labelledby="keys-list-h" data-testid="api-keys">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Scopes</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.data.data.map((k) => (
              <tr key={k.id}>
                <th scope="row">{k.name}</th>
                <td>
                  <code>{k.prefix}…</code>
                </td>
                <td>
                  {k.scopes.map((s) => (
                    <span key={s} className="tag">
                      {s}
                    </span>
                  ))}
                </td>
                <td title={fmtTime(k.created_at)}>
                  {fmtAgo(k.created_at)} by {who.get(k.created_by) ?? k.created_by}
                </td>
                <td>{fmtAgo(k.last_used_at)}</td>
                <td>{k.expires_at ? fmtTime(k.expires_at) : "never"}</td>
                <td>
                  <ConfirmButton label="Revoke" buttonLabel={`Revoke ${k.name}`} title={`Revoke ${k.name}?`} confirmLabel="Revoke key" onConfirm={() => revoke.mutate(k.id)}>
                    <p>Anything using this key gets 401 from its next request.</p>
                  </ConfirmButton>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorMessage error={revoke.error} />
      <form
        className="stack card"
        aria-label="New API key"
        onSubmit={(e) => {
          e.preventDefault();
          const f = e.currentTarget;
          const fd = new FormData(f);
          const expires = String(fd.get("key_expires") ?? "");
          create.mutate(
            { name: String(fd.get("key_name")).trim(), scopes: picked, ...(expires ? { expires_at: new Date(`${expires}T23:59:59`).toISOString() } : {}) },
            { onSuccess: () => f.reset() },
          );
        }}
      >
        <h2>New API key</h2>
        <Field label="Key name" name="key_name" required maxLength={100} placeholder="CI deploys" />
        <Field label="Expires on (optional)" name="key_expires" type="date" min={new Date().toISOString().slice(0, 10)} />
        <fieldset data-testid="scopes">
          <legend>Scopes</legend>
          {grantable.length < scopes.data.all.length && <p className="muted">Only the scopes your role holds are offered.</p>}
          {grantable.map((s) => (
            <label key={s} className="inline" style={{ display: "flex" }}>
              <input
                type="checkbox"
                name="scopes"
                value={s}
                checked={picked.includes(s) || (adminPicked && s !== "org:admin")}
                disabled={adminPicked && s !== "org:admin"}
                onChange={(e) => setPicked(e.target.checked ? [...picked, s] : picked.filter((x) => x !== s))}
              />{" "}
              {permissionLabel(s)} <code className="muted">{s}</code>
            </label>
          ))}
        </fieldset>
        <ErrorMessage error={create.error} />
        <button className="primary" disabled={create.isPending || picked.length === 0}>
          Create key
        </button>
      </form>
      <PrometheusScrape />
    </section>
  );
}
