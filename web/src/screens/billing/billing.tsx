import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { api, data } from "../../api/client";
import { fmtDate, fmtMoney } from "../../components/format";
import { ConfirmButton, SuspendedBadge, UsageBar } from "../../components/widgets";
import { ErrorMessage, Loading } from "../../components/ui";
import { Link, useRouter } from "../../lib/router";
import { useMyRole } from "../org/use-permissions";
import { lapsedSince, quotaLabel, quotaOrder } from "./billing-model";
import { Checkout } from "./checkout";
import { type Entitlements, invalidateBilling, LIVE, type Subscription } from "./billing-api";


export function Billing() {
  const qc = useQueryClient();
  const { search } = useRouter();
  const returned = search.get("checkout");
  useEffect(() => {
    if (returned) invalidateBilling(qc);
  }, [returned]);
  const ent = useQuery({ queryKey: ["entitlements"], queryFn: () => api.GET("/api/v1/entitlements").then(data) });
  const sub = useQuery({ queryKey: ["billing", "subscription"], queryFn: () => api.GET("/api/v1/billing/subscription").then(data) });
  const catalogue = useQuery({ queryKey: ["billing", "plans"], queryFn: () => api.GET("/api/v1/billing/plans").then(data), staleTime: 600_000 });
  const { can, loading } = useMyRole();
  const [notice, setNotice] = useState("");
  if (ent.isPending || sub.isPending || catalogue.isPending || loading) return <Loading what="billing" />;
  const error = ent.error ?? sub.error ?? catalogue.error;
  if (error || !ent.data || !sub.data || !catalogue.data) return <ErrorMessage error={error} />;
  const manage = can("billing:manage");
  const s = sub.data;
  const e = ent.data;
  return (
    <section aria-labelledby="billing-h">
      <h1 id="billing-h">Billing</h1>
      <p role="status" data-testid="billing-notice" className={notice ? "card" : undefined}>
        {notice}
      </p>
      {returned && (
        <p role="status" className="card" data-testid="checkout-returned">
          Thank you: your payment went through and the changes below apply now.
        </p>
      )}
      {!e.billing_enabled ? (
        <p className="card">Billing is off on this deployment: every organisation has the {e.plan.name} plan and nothing is charged.</p>
      ) : (
        <>
          {s.banner?.kind === "payment_failed" && (
            <div className="card banner-warning" role="note" data-testid="grace-notice">
              <h2>Payment failed</h2>
              <p>
                We could not charge your last renewal. Everything keeps working until <strong>{fmtDate(s.banner.grace_ends_at)}</strong>; the payment provider retries and sends you reminders.
                Update your payment method at the provider and pay the renewal there, or pay its open invoice with the card on file: either ends the grace period. Unpaid items end when the grace period does, and a paid plan drops to Free.
              </p>
              {s.banner.payment_url || s.banner.invoice_url ? (
                manage && (
                  // Same tab: the provider's pages send the browser back here once paid.
                  <span className="row">
                    {s.banner.payment_url && (
                      <a className="button primary" href={s.banner.payment_url} data-testid="update-payment">
                        Update payment method and pay
                      </a>
                    )}
                    {s.banner.invoice_url && (
                      <a className="button" href={s.banner.invoice_url} data-testid="open-invoice">
                        Pay the open invoice with the card on file
                      </a>
                    )}
                  </span>
                )
              ) : (
                <p className="muted">The payment provider's page is not reachable right now; its reminder emails link to it too.</p>
              )}
            </div>
          )}
          {!manage && <p className="muted">Only the organisation's owners can change the plan or buy add-ons.</p>}
        </>
      )}
      <div className="grid-2">
        <CurrentPlan sub={s} ent={e} />
        <Usage ent={e} />
      </div>
      <Suspended graceDays={catalogue.data.plans.find((p) => p.id === e.plan.id)?.grace_days} />
      {e.billing_enabled && (
        <>
          <Overlaps manage={manage} planNames={new Map(catalogue.data.plans.map((p) => [p.id, p.name]))} onNotice={setNotice} />
          <Lines sub={s} manage={manage} />
          <Checkout sub={s} ent={e} catalogue={catalogue.data} manage={manage} onNotice={setNotice} />
        </>
      )}
    </section>
  );
}

function CurrentPlan({ sub, ent }: { sub: Subscription; ent: Entitlements }) {
  const planLine = sub.lines.find((l) => l.kind === "plan" && LIVE.has(l.status));
  return (
    <div className="card" data-testid="current-plan">
      <h2>
        Current plan: <span data-testid="plan-name">{ent.plan.name}</span>
      </h2>
      {ent.billing_enabled ? (
        <p>
          Subscription: <span className={`badge badge-${sub.status}`}>{sub.status.replace(/_/g, " ")}</span>
        </p>
      ) : (
        <p className="muted">Self-hosted: no subscription, nothing is charged, and the limits below are the plan's.</p>
      )}
      {planLine ? (
        <p>
          {fmtMoney(planLine.price_cents, planLine.currency)} per {planLine.cycle === "annual" ? "year" : "month"}.{" "}
          {planLine.status === "pending_cancellation" ? `Ends ${fmtDate(planLine.cancel_at)}; then Free.` : planLine.next_renewal_at ? `Renews ${fmtDate(planLine.next_renewal_at)}.` : ""}
        </p>
      ) : (
        ent.billing_enabled && <p className="muted">No paid plan. Pick one below to raise your limits.</p>
      )}
    </div>
  );
}

function Usage({ ent }: { ent: Entitlements }) {
  const rows = Object.entries(ent.usage).sort(([a], [b]) => quotaOrder(a, b));
  return (
    <div className="card" data-testid="usage">
      <h2>Usage</h2>
      {rows.length === 0 && <p className="muted">Nothing counted yet.</p>}
      {rows.map(([k, u]) => (
        <UsageBar key={k} label={quotaLabel(k)} used={Number(u.used)} limit={u.limit} />
      ))}
      <p className="muted">Suspended resources hold no slot.</p>
    </div>
  );
}

/**
 * What the plan no longer covers: kept but not running until the quota allows it again, and deleted
 * by the billing jobs once suspended for the plan's grace period (docs/billing.md, "Suspension over quota").
 */
function Suspended({ graceDays }: { graceDays: number | undefined }) {
  const monitors = useQuery({ queryKey: ["monitors", "suspended"], queryFn: () => api.GET("/api/v1/monitors", { params: { query: { suspended: true, limit: 100 } } }).then(data) });
  const runners = useQuery({ queryKey: ["runners"], queryFn: () => api.GET("/api/v1/runners", { params: { query: { limit: 100 } } }).then(data) });
  const pages = useQuery({ queryKey: ["status-pages"], queryFn: () => api.GET("/api/v1/status-pages", { params: { query: { limit: 100 } } }).then(data) });
  const items = [
    ...(monitors.data?.data.map((m) => ({ id: m.id, name: m.name, what: "monitor", to: `/monitors/${m.id}` })) ?? []),
    ...(runners.data?.data.filter((r) => r.suspended && r.status !== "revoked").map((r) => ({ id: r.id, name: r.name, what: "runner", to: "/runners" })) ?? []),
    ...(pages.data?.data.filter((p) => p.suspended).map((p) => ({ id: p.id, name: p.name, what: "status page", to: `/status-pages/${p.id}` })) ?? []),
  ];
  if (items.length === 0) return null;
  const more = (monitors.data?.pagination.total ?? 0) - (monitors.data?.data.length ?? 0);
  return (
    <div className="card" data-testid="suspended">
      <h2>Suspended over your plan's limits</h2>
      <p>
        These are kept, not deleted, but do not run. They come back on their own when your quota covers them again (upgrade, buy an add-on, or delete others)
        {graceDays !== undefined ? `; after ${graceDays} days suspended they are deleted (runners are revoked)` : ""}.
      </p>
      <ul>
        {items.map((i) => (
          <li key={i.id}>
            <Link to={i.to}>{i.name}</Link> ({i.what}) <SuspendedBadge what={i.what} />
          </li>
        ))}
      </ul>
      {more > 0 && <p className="muted">and {more} more suspended monitors (Monitors lists them all).</p>}
    </div>
  );
}

function Overlaps({ manage, planNames, onNotice }: { manage: boolean; planNames: Map<string, string>; onNotice: (text: string) => void }) {
  const qc = useQueryClient();
  const overlaps = useQuery({ queryKey: ["billing", "overlaps"], queryFn: () => api.GET("/api/v1/billing/overlaps", { params: { query: { limit: 100 } } }).then(data) });
  const setSaid = onNotice;
  const keep = useMutation({
    mutationFn: (id: string) => api.POST("/api/v1/billing/overlaps/{id}/dismiss", { params: { path: { id } } }),
    onSuccess: () => {
      setSaid("Kept: the add-on stays on top of your plan.");
      invalidateBilling(qc);
    },
  });
  const cancel = useMutation({
    mutationFn: (id: string) => api.POST("/api/v1/billing/overlaps/{id}/cancel", { params: { path: { id } } }).then(data),
    onSuccess: (r) => {
      setSaid(`Cancelled at the next renewal; ${fmtMoney(r.credit_cents)} of unused balance is credited to your next invoice.`);
      invalidateBilling(qc);
    },
  });
  const list = overlaps.data?.data ?? [];
  return (
    <>
      {list.map((o) => (
        <div key={o.id} className="card banner-warning" role="note" data-testid="overlap">
          <h2>Your plan now includes what “{o.addon_name}” adds</h2>
          <p>
            The {planNames.get(o.plan_id) ?? o.plan_id} plan covers {o.overlapping_quotas.map(quotaLabel).join(", ")}, which you also pay for with this add-on. Keep it for the extra capacity, or cancel it: it stops at the next
            renewal and the unused balance is credited.
          </p>
          {manage && (
            <div className="row">
              <button onClick={() => keep.mutate(o.id)} disabled={keep.isPending}>
                Keep add-on
              </button>
              <button className="danger" onClick={() => cancel.mutate(o.id)} disabled={cancel.isPending}>
                Cancel add-on
              </button>
            </div>
          )}
        </div>
      ))}
      <ErrorMessage error={keep.error ?? cancel.error} />
    </>
  );
}

function Lines({ sub, manage }: { sub: Subscription; manage: boolean }) {
  const qc = useQueryClient();
  const cancel = useMutation({ mutationFn: (id: string) => api.POST("/api/v1/billing/lines/{id}/cancel", { params: { path: { id } } }), onSuccess: () => invalidateBilling(qc) });
  const resume = useMutation({ mutationFn: (id: string) => api.POST("/api/v1/billing/lines/{id}/resume", { params: { path: { id } } }), onSuccess: () => invalidateBilling(qc) });
  const lines = sub.lines.filter((l) => LIVE.has(l.status) || (l.status === "past_due" && !lapsedSince(sub.lines, l)));
  if (lines.length === 0) return null;
  return (
    <>
      <h2 id="lines-h">Subscription</h2>
      <table className="table" aria-labelledby="lines-h" data-testid="lines">
        <thead>
          <tr>
            <th scope="col">Item</th>
            <th scope="col">Price</th>
            <th scope="col">Status</th>
            <th scope="col">Renews or ends</th>
            <th scope="col">Invoice</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {lines.map((l) => (
            <tr key={l.id} data-line={l.product_id}>
              <th scope="row">
                {Number(l.quantity) > 1 ? `${l.quantity} × ` : ""}
                {l.product_name}
              </th>
              <td>
                {fmtMoney(l.price_cents, l.currency)} / {l.cycle === "annual" ? "year" : "month"}
              </td>
              <td>
                <span className={`badge badge-${l.status}`} data-status={l.status}>
                  {l.status.replace(/_/g, " ")}
                </span>
              </td>
              <td>
                {l.status === "pending_cancellation"
                  ? `Ends ${fmtDate(l.cancel_at)}`
                  : l.status === "grace_period"
                    ? `Grace until ${fmtDate(l.grace_ends_at)}`
                    : l.next_renewal_at
                      ? `Renews ${fmtDate(l.next_renewal_at)}`
                      : "—"}
              </td>
              <td>
                {l.invoice_url ? (
                  <a href={l.invoice_url} target="_blank" rel="noreferrer">
                    Invoice
                  </a>
                ) : (
                  "—"
                )}
              </td>
              <td>
                {manage && l.status === "active" && (
                  <ConfirmButton
                    label="Cancel"
                    buttonLabel={`Cancel ${l.product_name}`}
                    title={`Cancel ${l.product_name}?`}
                    confirmLabel="Cancel at period end"
                    onConfirm={() => cancel.mutate(l.id)}
                  >
                    <p>
                      It keeps working until {fmtDate(l.period_end)} and is not renewed.
                      {l.kind === "plan" ? " The organisation then moves to the Free plan; what does not fit its limits is suspended, and add-ons that need a paid plan end too." : ""} You can resume it
                      until then.
                    </p>
                  </ConfirmButton>
                )}
                {manage && l.status === "pending_cancellation" && (
                  <button onClick={() => resume.mutate(l.id)} aria-label={`Resume ${l.product_name}`} disabled={resume.isPending}>
                    Resume
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ErrorMessage error={cancel.error ?? resume.error} />
    </>
  );
}
