import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, data } from "../../api/client";
import { ConfirmButton } from "../../components/widgets";
import { ErrorMessage, Field, Loading } from "../../components/ui";
import { OrgNav } from "./org-nav";
import { roleGrants, useMyRole } from "./use-permissions";

const SYSTEM_ORDER = ["owner", "admin", "member", "viewer"];

const PERMISSION_LABELS: Record<string, string> = {
  "org:admin": "Administer the organisation (every scope below)",
  "monitors:read": "Monitors: read",
  "monitors:write": "Monitors: change",
  "alerts:read": "Alerting: read",
  "alerts:write": "Alerting: change",
  "status_pages:read": "Status pages: read",
  "status_pages:write": "Status pages: change",
  "runners:read": "Runners: read",
  "runners:write": "Runners: change",
  "incidents:read": "Incidents: read",
  "incidents:write": "Incidents: change",
  "api_keys:write": "API keys: manage",
  "billing:manage": "Billing: manage (roles only)",
  "org:owner": "Ownership (roles only)",
};
export const permissionLabel = (p: string) => PERMISSION_LABELS[p] ?? p;

/** System and custom roles as a permission matrix; custom roles are edited in place. */
export function Roles() {
  const qc = useQueryClient();
  const { can, covers, loading } = useMyRole();
  const admin = can("org:admin");
  const roles = useQuery({ queryKey: ["org", "roles"], queryFn: () => api.GET("/api/v1/org/roles", { params: { query: { limit: 100 } } }).then(data) });
  const [edits, setEdits] = useState<Record<string, string[]>>({});
  const [saved, setSaved] = useState("");
  const done = (msg: string) => {
    setSaved(msg);
    void qc.invalidateQueries({ queryKey: ["org", "roles"] });
  };
  const save = useMutation({
    mutationFn: (v: { id: string; permissions: string[] }) => api.PATCH("/api/v1/org/roles/{id}", { params: { path: { id: v.id } }, body: { permissions: v.permissions as never } }).then(data),
    onSuccess: (r) => {
      setEdits(({ [r.id]: _, ...rest }) => rest);
      done(`Saved ${r.name}.`);
    },
  });
  const create = useMutation({
    mutationFn: (body: { name: string; description?: string; permissions: string[] }) => api.POST("/api/v1/org/roles", { body: body as never }).then(data),
    onSuccess: (r) => done(`Created ${r.name}.`),
  });
  const remove = useMutation({ mutationFn: (id: string) => api.DELETE("/api/v1/org/roles/{id}", { params: { path: { id } } }), onSuccess: () => done("Deleted.") });
  if (roles.isPending || loading) return <Loading what="roles" />;
  if (roles.isError) return <ErrorMessage error={roles.error} />;
  const { permissions } = roles.data;
  const rank = (id: string) => (SYSTEM_ORDER.includes(id) ? SYSTEM_ORDER.indexOf(id) : SYSTEM_ORDER.length);
  const list = [...roles.data.data].sort((a, b) => rank(a.id) - rank(b.id) || a.name.localeCompare(b.name));
  const current = (id: string, base: string[]) => edits[id] ?? base;
  const toggle = (id: string, base: string[], p: string, on: boolean) => setEdits({ ...edits, [id]: on ? [...current(id, base), p] : current(id, base).filter((x) => x !== p) });
  return (
    <section aria-labelledby="roles-h">
      <h1 id="roles-h">Organisation</h1>
      <OrgNav />
      <h2 id="matrix-h">Roles and permissions</h2>
      <p className="muted">System roles are fixed. Custom roles can hold any permission you hold yourself; a member's API keys never exceed their role.</p>
      <div className="matrix">
        <table aria-labelledby="matrix-h" data-testid="permission-matrix">
          <thead>
            <tr>
              <th scope="col">Permission</th>
              {list.map((r) => (
                <th key={r.id} scope="col">
                  {r.name}
                  {r.system ? "" : " (custom)"}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {permissions.map((p) => (
              <tr key={p}>
                <th scope="row">{permissionLabel(p)}</th>
                {list.map((r) => {
                  const held = current(r.id, r.permissions);
                  // Administer implies every scope: shown ticked, not separately editable.
                  const implied = !held.includes(p) && roleGrants(held, p);
                  const editable = admin && !r.system && can(p) && !implied;
                  return (
                    <td key={r.id} title={implied ? "Included in “Administer the organisation”" : undefined}>
                      <input
                        type="checkbox"
                        aria-label={`${r.name}: ${permissionLabel(p)}${implied ? " (included by Administer)" : ""}`}
                        checked={held.includes(p) || implied}
                        disabled={!editable}
                        onChange={(e) => toggle(r.id, r.permissions, p, e.target.checked)}
                      />
                    </td>
                  );
                })}
              </tr>
            ))}
            {admin && list.some((r) => !r.system) && (
              <tr>
                <th scope="row">
                  <span className="visually-hidden">Actions</span>
                </th>
                {list.map((r) => (
                  <td key={r.id}>
                    {/* A role holding permissions the caller lacks can be neither changed nor deleted by them (the API refuses). */}
                    {!r.system && covers(r.permissions) && (
                      <div className="stack">
                        <button className="primary" disabled={!edits[r.id] || save.isPending} onClick={() => save.mutate({ id: r.id, permissions: edits[r.id]! })} aria-label={`Save ${r.name}`}>
                          Save
                        </button>
                        <ConfirmButton label="Delete" buttonLabel={`Delete ${r.name}`} title={`Delete the ${r.name} role?`} confirmLabel="Delete role" onConfirm={() => remove.mutate(r.id)}>
                          <p>Only a role nobody holds can be deleted; move its members to another role first.</p>
                        </ConfirmButton>
                      </div>
                    )}
                  </td>
                ))}
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <p role="status">{saved}</p>
      <ErrorMessage error={save.error ?? remove.error} />
      {admin && (
        <form
          className="stack card"
          aria-label="New custom role"
          onSubmit={(e) => {
            e.preventDefault();
            const f = e.currentTarget;
            const fd = new FormData(f);
            const description = String(fd.get("role_description") ?? "").trim();
            create.mutate(
              { name: String(fd.get("role_name")).trim(), ...(description ? { description } : {}), permissions: fd.getAll("role_permissions").map(String) },
              { onSuccess: () => f.reset() },
            );
          }}
        >
          <h2>New custom role</h2>
          <Field label="Role name" name="role_name" required maxLength={60} placeholder="Status page editor" />
          <Field label="Description (optional)" name="role_description" maxLength={300} />
          <fieldset>
            <legend>Permissions</legend>
            {permissions.map((p) => (
              <label key={p} className="inline" style={{ display: "flex" }}>
                <input type="checkbox" name="role_permissions" value={p} disabled={!can(p)} /> {permissionLabel(p)}
              </label>
            ))}
          </fieldset>
          <ErrorMessage error={create.error} />
          <button className="primary" disabled={create.isPending}>
            Create role
          </button>
        </form>
      )}
    </section>
  );
}
