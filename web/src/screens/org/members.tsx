import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, data } from "../../api/client";
import { fmtAgo } from "../../components/format";
import { ConfirmButton, SecretOnce } from "../../components/widgets";
import { EmptyState, ErrorMessage, Field, fmtTime, Loading, Select } from "../../components/ui";
import { useSession } from "../../lib/session";
import { OrgNav } from "./org-nav";
import { useMyRole } from "./use-permissions";

/** The organisation's name, members with their roles, and pending invitations. */
export function Members() {
  const qc = useQueryClient();
  const { user } = useSession();
  const { can, covers, assignable, loading } = useMyRole();
  const admin = can("org:admin");
  const org = useQuery({ queryKey: ["org"], queryFn: () => api.GET("/api/v1/org").then(data) });
  const members = useQuery({ queryKey: ["org", "members"], queryFn: () => api.GET("/api/v1/org/members", { params: { query: { limit: 100 } } }).then(data) });
  const roles = useQuery({ queryKey: ["org", "roles"], queryFn: () => api.GET("/api/v1/org/roles", { params: { query: { limit: 100 } } }).then(data) });
  const [saved, setSaved] = useState("");
  const rename = useMutation({
    mutationFn: (name: string) => api.PATCH("/api/v1/org", { body: { name } }).then(data),
    onSuccess: () => {
      setSaved("Saved");
      void qc.invalidateQueries({ queryKey: ["org"] });
      void qc.invalidateQueries({ queryKey: ["session"] });
    },
  });
  const changeRole = useMutation({
    mutationFn: (v: { id: string; role_id: string }) => api.PATCH("/api/v1/org/members/{id}", { params: { path: { id: v.id } }, body: { role_id: v.role_id } }),
    onSettled: () => qc.invalidateQueries({ queryKey: ["org", "members"] }),
  });
  const remove = useMutation({
    mutationFn: (id: string) => api.DELETE("/api/v1/org/members/{id}", { params: { path: { id } } }),
    onSettled: () => qc.invalidateQueries({ queryKey: ["org", "members"] }),
  });
  if (members.isPending || roles.isPending || org.isPending || loading) return <Loading what="members" />;
  const error = members.error ?? roles.error ?? org.error;
  if (error || !members.data || !roles.data || !org.data) return <ErrorMessage error={error} />;
  const roleName = new Map(roles.data.data.map((r) => [r.id, r.name]));
  const rolePermissions = new Map(roles.data.data.map((r) => [r.id, r.permissions]));
  // Only roles within the caller's own permissions can be given, and only a member whose role is within them changed or removed.
  const offered = assignable(roles.data.data);
  return (
    <section aria-labelledby="org-h">
      <h1 id="org-h">Organisation</h1>
      <OrgNav />
      {admin ? (
        <form
          className="row"
          aria-label="Rename the organisation"
          onSubmit={(e) => {
            e.preventDefault();
            setSaved("");
            rename.mutate(String(new FormData(e.currentTarget).get("org_name")).trim());
          }}
        >
          <Field label="Organisation name" name="org_name" required maxLength={120} defaultValue={org.data.name} />
          <button>Rename</button>
          <span role="status">{saved}</span>
        </form>
      ) : (
        <p>
          <strong>{org.data.name}</strong>
        </p>
      )}
      <ErrorMessage error={rename.error} />
      <h2 id="members-h">Members</h2>
      <table className="table" aria-labelledby="members-h" data-testid="members">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Two-factor</th>
            <th scope="col">Joined</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {members.data.data.map((m) => {
            const me = m.user_id === user?.id;
            const manageable = admin && !me && covers(rolePermissions.get(m.role_id) ?? []);
            return (
              <tr key={m.user_id} data-member={m.email}>
                <th scope="row">
                  {m.name}
                  {me ? " (you)" : ""}
                </th>
                <td>{m.email}</td>
                <td>
                  {manageable ? (
                    <select aria-label={`Role of ${m.name}`} value={m.role_id} onChange={(e) => changeRole.mutate({ id: m.user_id, role_id: e.target.value })}>
                      {offered.map((r) => (
                        <option key={r.id} value={r.id}>
                          {r.name}
                        </option>
                      ))}
                    </select>
                  ) : (
                    roleName.get(m.role_id) ?? m.role_id
                  )}
                </td>
                <td>{m.two_factor_enabled ? "on" : "off"}</td>
                <td title={fmtTime(m.joined_at)}>{fmtAgo(m.joined_at)}</td>
                <td>
                  {manageable && (
                    <ConfirmButton label="Remove" buttonLabel={`Remove ${m.name}`} title={`Remove ${m.name}?`} confirmLabel="Remove member" onConfirm={() => remove.mutate(m.user_id)}>
                      <p>They lose access to this organisation at once. Their API keys for it stop working.</p>
                    </ConfirmButton>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <ErrorMessage error={changeRole.error ?? remove.error} />
      {admin && <Invitations roles={roles.data.data} offered={offered} />}
    </section>
  );
}

/** `roles`: every role (to name those of pending invitations); `offered`: the ones the caller may invite to. */
function Invitations({ roles, offered }: { roles: { id: string; name: string }[]; offered: { id: string; name: string }[] }) {
  const qc = useQueryClient();
  const list = useQuery({ queryKey: ["org", "invitations"], queryFn: () => api.GET("/api/v1/org/invitations", { params: { query: { limit: 100 } } }).then(data) });
  const [sent, setSent] = useState("");
  // The emailed link, answered once: without an SMTP server (a self-hosted default) the mail only reaches the log.
  const [link, setLink] = useState("");
  const invite = useMutation({
    mutationFn: (body: { email: string; role_id: string }) => api.POST("/api/v1/org/invitations", { body }).then(data),
    onSuccess: (i) => {
      setSent(`Invitation sent to ${i.email}. It is valid for 7 days.`);
      setLink(i.accept_url);
      void qc.invalidateQueries({ queryKey: ["org", "invitations"] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api.DELETE("/api/v1/org/invitations/{id}", { params: { path: { id } } }),
    onSettled: () => qc.invalidateQueries({ queryKey: ["org", "invitations"] }),
  });
  const roleName = new Map(roles.map((r) => [r.id, r.name]));
  const pending = (list.data?.data ?? []).filter((i) => !i.accepted_at);
  return (
    <>
      <h2 id="invitations-h">Invitations</h2>
      {list.isError && <ErrorMessage error={list.error} />}
      {pending.length === 0 ? (
        <EmptyState title="No pending invitations">
          <p>Invite a colleague by email below. They join with the role you pick once they accept.</p>
        </EmptyState>
      ) : (
        <table className="table" aria-labelledby="invitations-h" data-testid="invitations">
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Sent</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {pending.map((i) => (
              <tr key={i.id}>
                <th scope="row">{i.email}</th>
                <td>{roleName.get(i.role_id) ?? i.role_id}</td>
                <td>{fmtAgo(i.created_at)}</td>
                <td>{fmtTime(i.expires_at)}</td>
                <td>
                  <ConfirmButton label="Revoke" buttonLabel={`Revoke invitation of ${i.email}`} title={`Revoke the invitation of ${i.email}?`} confirmLabel="Revoke invitation" onConfirm={() => revoke.mutate(i.id)}>
                    <p>The emailed link stops working.</p>
                  </ConfirmButton>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorMessage error={revoke.error} />
      <form
        className="row"
        aria-label="Invite someone"
        onSubmit={(e) => {
          e.preventDefault();
          const f = e.currentTarget;
          const fd = new FormData(f);
          setSent("");
          setLink("");
          invite.mutate({ email: String(fd.get("invite_email")).trim(), role_id: String(fd.get("invite_role")) }, { onSuccess: () => f.reset() });
        }}
      >
        <Field label="Email to invite" name="invite_email" type="email" required />
        <Select label="Role" name="invite_role" defaultValue={offered.some((r) => r.id === "member") ? "member" : offered[0]?.id}>
          {offered.map((r) => (
            <option key={r.id} value={r.id}>
              {r.name}
            </option>
          ))}
        </Select>
        <button className="primary" disabled={invite.isPending}>
          Send invitation
        </button>
      </form>
      <p role="status">{sent}</p>
      {link && (
        <SecretOnce label="Invitation link" value={link} stored="It lets whoever opens it join with the role you picked, so pass it to them only.">
          <p className="muted">The email carries the same link. If it does not arrive (when no mail server is set up, mail goes only to the server's log), send them this one.</p>
        </SecretOnce>
      )}
      <ErrorMessage error={invite.error} />
    </>
  );
}
