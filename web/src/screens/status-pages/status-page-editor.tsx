import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, data } from "../../api/client";
import { ConfirmButton, SubNav, SuspendedBadge } from "../../components/widgets";
import { ErrorMessage, Field, Loading } from "../../components/ui";
import { Link, useRouter } from "../../lib/router";
import { CustomDomain } from "./custom-domain";
import { LayoutEditor } from "./layout-editor";
import { Subscribers } from "./subscribers";
import { ThemePicker } from "./theme-picker";
import type { StatusPage } from "./status-page-api";

export type Tab = "layout" | "settings" | "domain" | "theme" | "subscribers";

const usePage = (id: string) =>
  useQuery({ queryKey: ["status-page", id], queryFn: () => api.GET("/api/v1/status-pages/{id}", { params: { path: { id } } }).then(data) });

/** One status page: layout, settings and access, custom domain, theme, subscribers. */
export function StatusPageEditor({ id, tab }: { id: string; tab: Tab }) {
  const page = usePage(id);
  if (page.isPending) return <Loading what="the status page" />;
  if (page.isError) return <ErrorMessage error={page.error} />;
  const p = page.data;
  const base = `/status-pages/${id}`;
  return (
    <section aria-labelledby="page-h">
      <p>
        <Link to="/status-pages">← Status pages</Link>
      </p>
      <header className="page-head">
        <h1 id="page-h">{p.name}</h1>
        {p.suspended && <SuspendedBadge what="status page" />}
        <a className="button" href={p.url} target="_blank" rel="noreferrer">
          View public page
        </a>
      </header>
      {p.suspended && (
        <p role="note" className="error">
          This page is over your plan's status-page quota: it is kept but not served. <Link to="/billing">Upgrade or add status pages</Link> to bring it back.
        </p>
      )}
      <SubNav
        label="Status page"
        items={[
          [base, "Layout"],
          [`${base}/settings`, "Settings and access"],
          [`${base}/domain`, "Custom domain"],
          [`${base}/theme`, "Theme"],
          [`${base}/subscribers`, "Subscribers"],
        ]}
      />
      {tab === "layout" && <LayoutEditor page={p} />}
      {tab === "settings" && <PageSettings page={p} />}
      {tab === "domain" && <CustomDomain page={p} />}
      {tab === "theme" && <ThemePicker page={p} />}
      {tab === "subscribers" && <Subscribers page={p} />}
    </section>
  );
}

function PageSettings({ page }: { page: StatusPage }) {
  const qc = useQueryClient();
  const { navigate } = useRouter();
  const [mode, setMode] = useState(page.access.mode);
  const [saved, setSaved] = useState("");
  const save = useMutation({
    mutationFn: (f: FormData) => {
      const password = String(f.get("password") ?? "");
      const allow = String(f.get("ip_allowlist") ?? "")
        .split(/[\s,]+/)
        .map((s) => s.trim())
        .filter(Boolean);
      return api
        .PATCH("/api/v1/status-pages/{id}", {
          params: { path: { id: page.id } },
          body: {
            name: String(f.get("name")).trim(),
            slug: String(f.get("slug")).trim(),
            description: String(f.get("description") ?? ""),
            access: { mode, ip_allowlist: allow, ...(mode === "password" && password ? { password } : {}) },
          },
        })
        .then(data);
    },
    onSuccess: (p) => {
      qc.setQueryData(["status-page", page.id], p);
      void qc.invalidateQueries({ queryKey: ["status-pages"] });
      setSaved("Saved");
    },
  });
  const remove = useMutation({
    mutationFn: () => api.DELETE("/api/v1/status-pages/{id}", { params: { path: { id: page.id } } }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ["status-pages"] });
      void qc.invalidateQueries({ queryKey: ["entitlements"] });
      navigate("/status-pages");
    },
  });
  const needsPassword = mode === "password" && !page.access.password_set;
  return (
    <>
      <form
        className="stack"
        aria-label="Settings and access"
        onSubmit={(e) => {
          e.preventDefault();
          setSaved("");
          save.mutate(new FormData(e.currentTarget));
        }}
      >
        <Field label="Name" name="name" required maxLength={120} defaultValue={page.name} />
        <Field label="Address (slug)" name="slug" required maxLength={64} defaultValue={page.slug} hint="Changing it breaks links to the old address" />
        <Field label="Description" name="description" maxLength={2000} defaultValue={page.description} />
        <fieldset>
          <legend>Who can see the page</legend>
          {(
            [
              ["public", "Anyone with the address"],
              ["password", "Anyone with a shared password"],
              ["members", "Only signed-in members of this organisation"],
            ] as const
          ).map(([m, text]) => (
            <label key={m} className="inline">
              <input type="radio" name="mode" value={m} checked={mode === m} onChange={() => setMode(m)} /> {text}
            </label>
          ))}
        </fieldset>
        {mode === "password" && (
          <Field
            label={page.access.password_set ? "New password (leave empty to keep the current one)" : "Password"}
            name="password"
            type="password"
            minLength={8}
            maxLength={200}
            required={needsPassword}
            autoComplete="new-password"
            hint="At least 8 characters; changing it signs every visitor out"
          />
        )}
        <div className="field">
          <label htmlFor="ip-allowlist">IP allowlist (optional)</label>
          <textarea id="ip-allowlist" name="ip_allowlist" rows={3} defaultValue={page.access.ip_allowlist.join("\n")} aria-describedby="ip-allowlist-hint" placeholder={"203.0.113.0/24\n2001:db8::/32"} />
          <small id="ip-allowlist-hint" className="muted">
            One address or CIDR range per line. When set, only these addresses see the page, whatever the mode.
          </small>
        </div>
        <ErrorMessage error={save.error} />
        <div className="row">
          <button className="primary" disabled={save.isPending}>
            Save settings
          </button>
          <span role="status">{saved}</span>
        </div>
      </form>
      <h2>Delete</h2>
      <ConfirmButton label="Delete status page" title={`Delete ${page.name}?`} confirmLabel="Delete page" onConfirm={() => remove.mutate()}>
        <p>The page, its layout and its subscribers are deleted; its address stops answering. Incidents stay.</p>
      </ConfirmButton>
      <ErrorMessage error={remove.error} />
    </>
  );
}
