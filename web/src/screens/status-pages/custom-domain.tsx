import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, ApiError, data } from "../../api/client";
import { fmtDate } from "../../components/format";
import { ConfirmButton, CopyButton } from "../../components/widgets";
import { ErrorMessage, Field, Loading } from "../../components/ui";
import { Link } from "../../lib/router";
import type { StatusPage } from "./status-page-api";

/** A custom domain: the TXT record to publish, a check of it, and whether the plan serves it. */
export function CustomDomain({ page }: { page: StatusPage }) {
  const qc = useQueryClient();
  const entitlements = useQuery({ queryKey: ["entitlements"], queryFn: () => api.GET("/api/v1/entitlements").then(data) });
  const [checked, setChecked] = useState("");
  const set = (p: StatusPage) => {
    qc.setQueryData(["status-page", page.id], p);
    void qc.invalidateQueries({ queryKey: ["status-pages"] });
  };
  const setDomain = useMutation({
    mutationFn: (domain: string) => api.POST("/api/v1/status-pages/{id}/domain", { params: { path: { id: page.id } }, body: { domain } }).then(data),
    onSuccess: set,
  });
  const verify = useMutation({
    mutationFn: () => api.POST("/api/v1/status-pages/{id}/domain/verify", { params: { path: { id: page.id } } }).then(data),
    onMutate: () => setChecked(""),
    onSuccess: (p) => {
      set(p);
      setChecked("The record matches: the domain is verified.");
    },
  });
  const remove = useMutation({
    mutationFn: () => api.DELETE("/api/v1/status-pages/{id}/domain", { params: { path: { id: page.id } } }).then(data),
    onSuccess: set,
  });
  if (entitlements.isPending) return <Loading what="your plan" />;
  const free = entitlements.data?.billing_enabled && entitlements.data.plan.id === "free";
  const d = page.custom_domain;
  // A failed check answers 409 with what the DNS holds now.
  const found = verify.error instanceof ApiError && Array.isArray(verify.error.details.found) ? (verify.error.details.found as string[]) : null;
  return (
    <div>
      <p className="muted">Serve this page at your own address, such as status.example.com. Point the domain at this deployment (a CNAME or your proxy), then prove it is yours with a DNS TXT record.</p>
      {free && (
        <p role="note" className="error" data-testid="domain-plan">
          Custom domains need a paid plan{d ? ": this domain is not served on the Free plan" : ""}. <Link to="/billing">See plans</Link>
        </p>
      )}
      {d ? (
        <div className="card">
          <h2>
            {d.domain}{" "}
            <span className={`badge badge-${d.active ? "active" : d.verified ? "grace_period" : "offline"}`} data-testid="domain-state">
              {d.active ? "active" : d.verified ? "verified, not served on this plan" : "not verified"}
            </span>
          </h2>
          {d.verified ? (
            <p>Verified on {fmtDate(d.verified_at)}.</p>
          ) : (
            <>
              <p>Publish this TXT record at your DNS provider, then check it. Changes can take a few minutes to appear.</p>
              <dl className="kv" data-testid="txt-record">
                <dt>Type</dt>
                <dd>{d.txt_record.type}</dd>
                <dt>Name</dt>
                <dd>
                  <code>{d.txt_record.name}</code> <CopyButton text={d.txt_record.name} what="record name" />
                </dd>
                <dt>Value</dt>
                <dd>
                  <code>{d.txt_record.value}</code> <CopyButton text={d.txt_record.value} what="record value" />
                </dd>
              </dl>
            </>
          )}
          <div className="row">
            {!d.verified && (
              <button className="primary" onClick={() => verify.mutate()} disabled={verify.isPending || Boolean(free)}>
                {verify.isPending ? "Checking…" : "Check DNS record"}
              </button>
            )}
            <ConfirmButton label="Remove domain" title={`Remove ${d.domain}?`} confirmLabel="Remove domain" onConfirm={() => remove.mutate()}>
              <p>The page stops answering at {d.domain}. It stays at its /status address.</p>
            </ConfirmButton>
          </div>
          <p role="status">{checked}</p>
          {verify.error && (
            <div role="alert" className="error" data-testid="verify-error">
              <strong>{verify.error.message}</strong>
              {found && <p>{found.length === 0 ? "No TXT record was found at that name." : `Found instead: ${found.map((f) => `“${f}”`).join(", ")}`}</p>}
            </div>
          )}
          <ErrorMessage error={remove.error} />
        </div>
      ) : (
        <form
          className="stack"
          aria-label="Set a custom domain"
          onSubmit={(e) => {
            e.preventDefault();
            setDomain.mutate(String(new FormData(e.currentTarget).get("domain")).trim());
          }}
        >
          <Field label="Domain" name="domain" required minLength={3} maxLength={253} placeholder="status.example.com" disabled={Boolean(free)} />
          <ErrorMessage error={setDomain.error} />
          <button className="primary" disabled={setDomain.isPending || Boolean(free)}>
            Set domain
          </button>
        </form>
      )}
    </div>
  );
}
