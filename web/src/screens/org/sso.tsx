import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, ApiError, data } from "../../api/client";
import { ConfirmButton } from "../../components/widgets";
import { ErrorMessage, Field, fmtTime, issuesOf, Loading, Select } from "../../components/ui";
import { OrgNav } from "./org-nav";
import { useMyRole } from "./use-permissions";

type SsoBody = {
  slug: string;
  issuer: string;
  client_id: string;
  client_secret?: string;
  allowed_domains: string[];
  default_role_id: string;
  require_sso: boolean;
};

const SECRET_PLACEHOLDER = "••••••••";

/** "a.com, b.com" or one per line → the list the API takes. */
const parseDomains = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((d) => d.trim().toLowerCase())
    .filter(Boolean);

/** Single sign-on with OpenID Connect: the provider, who may sign in, the role new members get, and whether passwords still work. */
export function Sso() {
  const qc = useQueryClient();
  const { can, assignable, loading } = useMyRole();
  const admin = can("org:admin");
  const config = useQuery({
    queryKey: ["org", "sso"],
    enabled: admin,
    retry: false,
    // 404 means "not configured yet": an empty form, not an error.
    queryFn: () => api.GET("/api/v1/org/sso").then(data).catch((err: unknown) => (err instanceof ApiError && err.status === 404 ? null : Promise.reject(err))),
  });
  const roles = useQuery({ queryKey: ["org", "roles"], enabled: admin, queryFn: () => api.GET("/api/v1/org/roles", { params: { query: { limit: 100 } } }).then(data) });
  const [issuer, setIssuer] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (body: SsoBody) => api.PUT("/api/v1/org/sso", { body }).then(data),
    onSuccess: (c) => qc.setQueryData(["org", "sso"], c),
  });
  const test = useMutation({ mutationFn: (value: string) => api.POST("/api/v1/org/sso/test", { body: { issuer: value } }).then(data) });
  const remove = useMutation({
    mutationFn: () => api.DELETE("/api/v1/org/sso"),
    onSuccess: () => {
      qc.setQueryData(["org", "sso"], null);
      save.reset();
      test.reset();
    },
  });

  const frame = (body: React.ReactNode) => (
    <section aria-labelledby="sso-h">
      <h1 id="sso-h">Organisation</h1>
      <OrgNav />
      <h2>Single sign-on</h2>
      {body}
    </section>
  );
  if (loading) return <Loading what="your role" />;
  if (!admin) return frame(<p>Only owners and admins can configure single sign-on.</p>);
  if (config.isPending || roles.isPending) return <Loading what="single sign-on" />;
  if (config.isError) return frame(<ErrorMessage error={config.error} />);
  const current = config.data;
  const issues = issuesOf(save.error);
  const callback = current?.redirect_uri ?? `${location.origin}/api/v1/auth/sso/callback`;
  // Never owner (the API refuses it), and only roles within the caller's own permissions.
  const choosable = assignable(roles.data?.data ?? []).filter((r) => r.id !== "owner");
  const defaultRole = [current?.default_role_id ?? "member", "member"].find((id) => choosable.some((r) => r.id === id)) ?? choosable[0]?.id;

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const secret = String(f.get("client_secret") ?? "");
    save.mutate({
      slug: String(f.get("slug")),
      issuer: String(f.get("issuer")),
      client_id: String(f.get("client_id")),
      ...(secret && secret !== SECRET_PLACEHOLDER ? { client_secret: secret } : {}),
      allowed_domains: parseDomains(String(f.get("allowed_domains") ?? "")),
      default_role_id: String(f.get("default_role_id")),
      require_sso: f.get("require_sso") === "on",
    });
  };

  return frame(
    <>
      <p className="muted">
        Members sign in through your identity provider (OpenID Connect: Okta, Entra ID, Google Workspace, Keycloak, Authentik…). Register this redirect URI with the provider:{" "}
        <code data-testid="sso-redirect-uri">{callback}</code>
      </p>
      <form className="card" onSubmit={submit} key={current?.updated_at ?? "new"} aria-label="Single sign-on configuration">
        <Field label="SSO name" name="slug" required defaultValue={current?.slug ?? ""} pattern="[a-z0-9]([a-z0-9\-]{0,61}[a-z0-9])?" hint="Lower-case letters, digits and hyphens; members can type it on the sign-in page" error={issues["body.slug"]} />
        <Field
          label="Issuer URL"
          name="issuer"
          type="url"
          required
          defaultValue={current?.issuer ?? ""}
          onChange={(e) => setIssuer(e.target.value)}
          placeholder="https://login.example.com"
          error={issues["body.issuer"]}
        />
        <Field label="Client ID" name="client_id" required defaultValue={current?.client_id ?? ""} autoComplete="off" error={issues["body.client_id"]} />
        <Field
          label="Client secret"
          name="client_secret"
          type="password"
          autoComplete="new-password"
          required={!current}
          placeholder={current ? "Stored encrypted; leave empty to keep it" : ""}
          hint={current ? "Never shown again once saved; type a new one to replace it" : "Stored encrypted; never shown again"}
          error={issues["body.client_secret"]}
        />
        <div className="field">
          <label htmlFor="f-allowed-domains">Allowed email domains (optional)</label>
          <textarea id="f-allowed-domains" name="allowed_domains" rows={2} defaultValue={current?.allowed_domains.join(", ") ?? ""} aria-describedby="f-allowed-domains-hint" />
          <small id="f-allowed-domains-hint" className="muted">
            Comma or line separated, e.g. example.com. People with these addresses are offered this provider when they type their email; others are refused. Empty: anyone your provider signs in, found by SSO name.
          </small>
        </div>
        <Select label="Role for new members" name="default_role_id" defaultValue={defaultRole}>
          {choosable.map((r) => (
            <option key={r.id} value={r.id}>
              {r.name}
            </option>
          ))}
        </Select>
        <p className="muted">People signing in for the first time become members with this role (just-in-time provisioning).</p>
        <label className="inline">
          <input type="checkbox" name="require_sso" defaultChecked={current?.require_sso ?? false} /> Require single sign-on
        </label>
        <p className="muted">Members can then no longer sign in with a password. Owners still can, so a broken provider never locks you out.</p>
        <ErrorMessage error={save.error} />
        {save.isSuccess && (
          <p role="status" className="notice">
            Saved.
          </p>
        )}
        <div className="row">
          <button className="primary" disabled={save.isPending}>
            {save.isPending ? "Saving…" : current ? "Save" : "Turn on single sign-on"}
          </button>
          <button type="button" disabled={test.isPending || !(issuer ?? current?.issuer)} onClick={() => test.mutate((issuer ?? current?.issuer)!)}>
            {test.isPending ? "Testing…" : "Test connection"}
          </button>
        </div>
        {test.data && (
          <div role="status" data-testid="sso-test-result" className={test.data.ok ? "notice" : "error"}>
            {test.data.ok ? (
              <>
                <strong>Connected to {test.data.issuer}.</strong> Authorization endpoint {test.data.authorization_endpoint}
                {test.data.pkce_s256 ? "; PKCE (S256) supported." : "; the provider does not list PKCE S256, which sign-in requires."}
              </>
            ) : (
              test.data.error
            )}
          </div>
        )}
        <ErrorMessage error={test.error} />
      </form>
      {current && (
        <div className="card">
          <p className="muted">
            Members sign in at the sign-in page with “Sign in with SSO” and the SSO name <strong>{current.slug}</strong>
            {current.allowed_domains.length > 0 ? ` or an address at ${current.allowed_domains.join(", ")}` : ""}. Last changed {fmtTime(current.updated_at)}.
          </p>
          <ConfirmButton label="Turn off single sign-on" title="Turn off single sign-on?" confirmLabel="Turn off" onConfirm={() => remove.mutate()}>
            <p>Members keep their accounts; those without a password set one with “Forgot your password?”. The link between provider accounts and members is forgotten.</p>
          </ConfirmButton>
          <ErrorMessage error={remove.error} />
        </div>
      )}
    </>,
  );
}
