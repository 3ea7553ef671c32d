import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, data } from "../../api/client";
import { ConfirmButton, SecretOnce } from "../../components/widgets";
import { EmptyState, ErrorMessage, Field, fmtTime, Loading } from "../../components/ui";
import type { StatusPage } from "./status-page-api";

/** Who hears about incidents on this page: email (double opt-in) and webhook subscribers. */
export function Subscribers({ page }: { page: StatusPage }) {
  const qc = useQueryClient();
  const [pageNo, setPageNo] = useState(1);
  const key = ["status-page", page.id, "subscribers", pageNo];
  const subs = useQuery({
    queryKey: key,
    queryFn: () => api.GET("/api/v1/status-pages/{id}/subscribers", { params: { path: { id: page.id }, query: { page: pageNo, limit: 50 } } }).then(data),
  });
  const [kind, setKind] = useState<"email" | "webhook">("email");
  // A new webhook subscription's signing secret: the API answers it once, with the subscription.
  const [signing, setSigning] = useState<{ url: string; secret: string } | null>(null);
  const add = useMutation({
    mutationFn: (value: string) => api.POST("/api/v1/status-pages/{id}/subscribers", { params: { path: { id: page.id } }, body: kind === "email" ? { email: value } : { webhook_url: value } }).then(data),
    onSuccess: (created) => {
      setSigning(created.webhook_secret ? { url: created.webhook_url ?? "", secret: created.webhook_secret } : null);
      return qc.invalidateQueries({ queryKey: ["status-page", page.id, "subscribers"] });
    },
  });
  const remove = useMutation({
    mutationFn: (subscriberId: string) => api.DELETE("/api/v1/status-pages/{id}/subscribers/{subscriberId}", { params: { path: { id: page.id, subscriberId } } }),
    onSettled: () => qc.invalidateQueries({ queryKey: ["status-page", page.id, "subscribers"] }),
  });
  if (subs.isPending) return <Loading what="subscribers" />;
  if (subs.isError) return <ErrorMessage error={subs.error} />;
  const { data: rows, pagination } = subs.data;
  return (
    <div>
      <p className="muted">Subscribers hear about incidents on this page. Email addresses confirm by a link first; webhooks receive incident JSON at once.</p>
      {rows.length === 0 ? (
        <EmptyState title="No subscribers yet">
          <p>Visitors subscribe from the public page; you can also add an address or a webhook here.</p>
        </EmptyState>
      ) : (
        <table className="table" data-testid="subscribers">
          <caption className="visually-hidden">Subscribers</caption>
          <thead>
            <tr>
              <th scope="col">Subscriber</th>
              <th scope="col">Kind</th>
              <th scope="col">State</th>
              <th scope="col">Since</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((s) => {
              const who = s.email ?? s.webhook_url ?? s.id;
              return (
                <tr key={s.id}>
                  <th scope="row">{who}</th>
                  <td>{s.kind}</td>
                  <td>{s.confirmed ? `confirmed ${fmtTime(s.confirmed_at)}` : "waiting for confirmation"}</td>
                  <td>{fmtTime(s.created_at)}</td>
                  <td>
                    <ConfirmButton label="Remove" buttonLabel={`Remove ${who}`} title={`Remove ${who}?`} confirmLabel="Remove subscriber" onConfirm={() => remove.mutate(s.id)}>
                      <p>They get no further incident notices from this page.</p>
                    </ConfirmButton>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {Number(pagination.totalPages) > 1 && (
        <div className="row" role="navigation" aria-label="Subscriber pages">
          <button disabled={pageNo <= 1} onClick={() => setPageNo(pageNo - 1)}>
            Previous
          </button>
          <span>
            Page {pageNo} of {String(pagination.totalPages)} ({String(pagination.total)} subscribers)
          </span>
          <button disabled={!pagination.hasMore} onClick={() => setPageNo(pageNo + 1)}>
            Next
          </button>
        </div>
      )}
      <ErrorMessage error={remove.error} />
      {signing && (
        <SecretOnce label={`Signing secret for ${signing.url}`} value={signing.secret} stored="Watchpost keeps it encrypted to sign with, and never shows it again.">
          <p>
            Every incident notice to this webhook is signed the Standard Webhooks way (<code>webhook-id</code>, <code>webhook-timestamp</code>,{" "}
            <code>webhook-signature</code>): give this secret to the receiver, which verifies with any Standard Webhooks library. Adding the same URL again issues a new
            secret; the old one stays valid until the next.
          </p>
          <button type="button" onClick={() => setSigning(null)}>
            Done
          </button>
        </SecretOnce>
      )}
      <form
        className="stack card"
        aria-label="Add a subscriber"
        onSubmit={(e) => {
          e.preventDefault();
          const f = e.currentTarget;
          add.mutate(String(new FormData(f).get("subscriber")).trim(), { onSuccess: () => f.reset() });
        }}
      >
        <h2>Add a subscriber</h2>
        <fieldset>
          <legend>Kind</legend>
          <label className="inline">
            <input type="radio" name="kind" checked={kind === "email"} onChange={() => setKind("email")} /> Email (gets a confirmation link)
          </label>
          <label className="inline">
            <input type="radio" name="kind" checked={kind === "webhook"} onChange={() => setKind("webhook")} /> Webhook
          </label>
        </fieldset>
        {kind === "email" ? (
          <Field key="email" label="Email address" name="subscriber" type="email" required maxLength={320} />
        ) : (
          <Field key="webhook" label="Webhook URL" name="subscriber" type="url" required maxLength={2000} placeholder="https://example.com/hooks/status" />
        )}
        <ErrorMessage error={add.error} />
        <button className="primary" disabled={add.isPending}>
          Add subscriber
        </button>
      </form>
    </div>
  );
}
