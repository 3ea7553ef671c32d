import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, data } from "../../api/client";
import { isUnlimited } from "../../components/format";
import { SuspendedBadge } from "../../components/widgets";
import { EmptyState, ErrorMessage, Field, Loading } from "../../components/ui";
import { Link, useRouter } from "../../lib/router";

/** A status page's address: what the API accepts, and the words for it when the browser refuses another. */
const SLUG_PATTERN = "[a-z0-9]([a-z0-9\\-]*[a-z0-9])?";
const slugValid = (v: string) => v === "" || new RegExp(`^(${SLUG_PATTERN})$`).test(v);
const SLUG_RULE = "lower-case letters, digits and hyphens, e.g. acme-status";

/** "Acme Status!" → "acme-status": the slug the create form suggests. */
const slugify = (name: string) =>
  name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64)
    .replace(/-+$/, "");

export function StatusPagesList() {
  const qc = useQueryClient();
  const { navigate } = useRouter();
  const pages = useQuery({ queryKey: ["status-pages"], queryFn: () => api.GET("/api/v1/status-pages", { params: { query: { limit: 100 } } }).then(data) });
  const entitlements = useQuery({ queryKey: ["entitlements"], queryFn: () => api.GET("/api/v1/entitlements").then(data) });
  const [name, setName] = useState("");
  const [slug, setSlug] = useState("");
  const [slugTouched, setSlugTouched] = useState(false);
  const slugOk = slugValid(slug);
  const create = useMutation({
    mutationFn: (body: { name: string; slug: string; description?: string }) => api.POST("/api/v1/status-pages", { body }).then(data),
    onSuccess: (page) => {
      void qc.invalidateQueries({ queryKey: ["status-pages"] });
      void qc.invalidateQueries({ queryKey: ["entitlements"] });
      navigate(`/status-pages/${page.id}`);
    },
  });
  if (pages.isPending) return <Loading what="status pages" />;
  if (pages.isError) return <ErrorMessage error={pages.error} />;
  const slots = entitlements.data?.usage.status_pages;
  const usage = slots ? { used: Number(slots.used), limit: slots.limit } : null;
  const full = usage ? usage.used >= usage.limit : false;
  return (
    <section aria-labelledby="sp-h">
      <header className="page-head">
        <h1 id="sp-h">Status pages</h1>
        {usage && (
          <span className="muted">
            {isUnlimited(usage.limit) ? `${usage.used} page${usage.used === 1 ? "" : "s"} used (unlimited)` : `${usage.used} of ${usage.limit} pages used`}
          </span>
        )}
        <Link to="/incidents" className="button">
          Incidents
        </Link>
      </header>
      {pages.data.data.length === 0 ? (
        <EmptyState title="Tell your users how things are going">
          <p>A status page shows your monitors' health, incidents and planned maintenance at a public address. Create one below, then add your monitors to it.</p>
        </EmptyState>
      ) : (
        <table className="table" data-testid="status-pages">
          <thead>
            <tr>
              <th scope="col">Page</th>
              <th scope="col">Address</th>
              <th scope="col">Access</th>
              <th scope="col">Components</th>
              <th scope="col">Custom domain</th>
            </tr>
          </thead>
          <tbody>
            {pages.data.data.map((p) => (
              <tr key={p.id}>
                <th scope="row">
                  <Link to={`/status-pages/${p.id}`}>{p.name}</Link> {p.suspended && <SuspendedBadge what="status page" />}
                </th>
                <td>
                  <a href={p.url} target="_blank" rel="noreferrer">
                    /status/{p.slug}
                  </a>
                </td>
                <td>{p.access.mode}</td>
                <td>{p.layout.sections.reduce((n, s) => n + s.components.length, 0)}</td>
                <td>{p.custom_domain ? `${p.custom_domain.domain} (${p.custom_domain.active ? "active" : p.custom_domain.verified ? "verified, not served on this plan" : "not verified"})` : "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2 id="new-page-h">New status page</h2>
      {full && usage && (
        <p role="note" className="muted">
          Your plan includes {usage.limit} status page{usage.limit === 1 ? "" : "s"}, all in use. <Link to="/billing">Upgrade or add pages</Link>.
        </p>
      )}
      <form
        className="stack"
        aria-labelledby="new-page-h"
        onSubmit={(e) => {
          e.preventDefault();
          const description = String(new FormData(e.currentTarget).get("description") ?? "").trim();
          create.mutate({ name: name.trim(), slug, ...(description ? { description } : {}) });
        }}
      >
        <Field
          label="Name"
          name="name"
          required
          maxLength={120}
          value={name}
          placeholder="Acme status"
          onChange={(e) => {
            setName(e.target.value);
            if (!slugTouched) setSlug(slugify(e.target.value));
          }}
        />
        <Field
          label="Address (slug)"
          name="slug"
          required
          maxLength={64}
          pattern={SLUG_PATTERN}
          hint={slugOk ? `Public at ${location.origin}/status/${slug || "…"}` : undefined}
          error={slugOk ? undefined : `must use ${SLUG_RULE}`}
          value={slug}
          onChange={(e) => {
            setSlugTouched(true);
            setSlug(e.target.value);
            // The browser's own refusal ("Please match the requested format") would not say what the format is.
            e.target.setCustomValidity(slugValid(e.target.value) ? "" : `Use ${SLUG_RULE}`);
          }}
        />
        <Field label="Description (optional)" name="description" maxLength={2000} />
        <ErrorMessage error={create.error} />
        <button className="primary" disabled={create.isPending || full}>
          Create status page
        </button>
      </form>
    </section>
  );
}
