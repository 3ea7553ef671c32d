import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, data, type paths } from "../../api/client";
import { fmtDate, fmtMoney, fmtTime } from "../../components/format";
import { Modal } from "../../components/widgets";
import { ErrorMessage } from "../../components/ui";
import { type Catalogue, type Entitlements, invalidateBilling, LIVE, type Subscription } from "./billing-api";
import { annualSaving, type CartLine, cartTotal, COMPARED, fmtQuota, overAfterChange, quotaLabel } from "./billing-model";

type Cycle = "monthly" | "annual";
type Plan = Catalogue["plans"][number];
type Change = paths["/api/v1/billing/change-plan"]["post"]["responses"]["200"]["content"]["application/json"];

/** Plan comparison, plan changes with their proration, and add-ons with quantities in one checkout. */
export function Checkout({ sub, ent, catalogue, manage, onNotice }: { sub: Subscription; ent: Entitlements; catalogue: Catalogue; manage: boolean; onNotice: (text: string) => void }) {
  const qc = useQueryClient();
  const live = sub.lines.some((l) => LIVE.has(l.status));
  const liveCycle = sub.lines.find((l) => LIVE.has(l.status))?.cycle;
  const planLine = sub.lines.find((l) => l.kind === "plan" && LIVE.has(l.status));
  const [cycleChoice, setCycle] = useState<Cycle>(liveCycle ?? "monthly");
  // Add-ons join the live subscription and are billed on its cycle.
  const cycle: Cycle = liveCycle ?? cycleChoice;
  const [plan, setPlan] = useState<string | null>(null);
  const [qty, setQty] = useState<Record<string, number>>({});
  const [changing, setChanging] = useState<Plan | null>(null);
  const setNotice = onNotice;
  const plans = catalogue.plans;
  const sortOf = (id: string) => plans.findIndex((p) => p.id === id);
  const basePlan = plan ?? ent.plan.id;
  const price = (p: { monthly_price_cents: number | string; annual_price_cents: number | string }) => Number(cycle === "annual" ? p.annual_price_cents : p.monthly_price_cents);

  const cart: CartLine[] = [
    ...(plan ? [{ id: plan, name: `${plans.find((p) => p.id === plan)!.name} plan`, quantity: 1, unitCents: price(plans.find((p) => p.id === plan)!) }] : []),
    ...catalogue.addons.filter((a) => (qty[a.id] ?? 0) > 0).map((a) => ({ id: a.id, name: a.name, quantity: qty[a.id]!, unitCents: price(a) })),
  ];
  const checkout = useMutation({
    mutationFn: () =>
      api
        .POST("/api/v1/billing/checkout", {
          body: { ...(plan ? { plan } : {}), addons: cart.filter((l) => l.id !== plan).map((l) => ({ id: l.id, quantity: l.quantity })), cycle },
        })
        .then(data),
    onSuccess: (r) => {
      // A new subscription is paid at the provider's hosted checkout, which sends the browser back here.
      if (r.checkout_url) location.assign(r.checkout_url);
      else {
        setQty({});
        setNotice("Added to your subscription: the prorated amount for the rest of this period is charged now.");
        invalidateBilling(qc);
      }
    },
  });

  return (
    <>
      <h2 id="plans-h">Plans</h2>
      <div className="row">
        <div className="segmented" role="radiogroup" aria-label="Billing cycle">
          {(["monthly", "annual"] as const).map((c) => (
            <label key={c}>
              <input type="radio" name="cycle" checked={cycle === c} disabled={Boolean(liveCycle)} onChange={() => setCycle(c)} /> {c === "monthly" ? "Monthly" : "Annual"}
            </label>
          ))}
        </div>
        {liveCycle && <span className="muted">Your subscription is billed {liveCycle}; changes keep that cycle.</span>}
      </div>
      <ul className="plans cards" aria-labelledby="plans-h">
        {plans.map((p) => {
          const current = p.id === ent.plan.id;
          const saving = annualSaving(p.monthly_price_cents, p.annual_price_cents);
          return (
            <li key={p.id} className="card plan" data-current={current} data-plan={p.id}>
              <h3>{p.name}</h3>
              <div>
                <span className="price">{fmtMoney(cycle === "annual" ? p.annual_monthly_equivalent_cents : p.monthly_price_cents)}</span> / month
                {cycle === "annual" && Number(p.annual_price_cents) > 0 && (
                  <div className="muted">
                    {fmtMoney(p.annual_price_cents)} billed yearly (save {saving}%)
                  </div>
                )}
                {cycle === "monthly" && Number(p.annual_price_cents) > 0 && <div className="muted">or {fmtMoney(p.annual_monthly_equivalent_cents)} / month billed yearly</div>}
              </div>
              <ul>
                {COMPARED.filter((k) => p.quotas[k] !== undefined).map((k) => (
                  <li key={k}>
                    {quotaLabel(k)}: <strong>{fmtQuota(k, p.quotas[k]!)}</strong>
                  </li>
                ))}
              </ul>
              {current ? (
                <strong>Current plan</strong>
              ) : !manage || !ent.billing_enabled ? null : p.id === "free" ? (
                planLine && <span className="muted">Cancel the plan below to move to Free at the end of the period.</span>
              ) : planLine ? (
                planLine.status === "active" && (
                  <button className={sortOf(p.id) > sortOf(ent.plan.id) ? "primary" : undefined} onClick={() => setChanging(p)}>
                    {sortOf(p.id) > sortOf(ent.plan.id) ? "Upgrade" : "Downgrade"} to {p.name}
                  </button>
                )
              ) : live ? null : (
                <label className="inline">
                  <input type="checkbox" checked={plan === p.id} onChange={(e) => setPlan(e.target.checked ? p.id : null)} /> Choose {p.name}
                </label>
              )}
            </li>
          );
        })}
      </ul>
      {changing && planLine && <PlanChange target={changing} ent={ent} onClose={() => setChanging(null)} onDone={(msg) => setNotice(msg)} />}

      <h2 id="addons-h">Add-ons</h2>
      <p className="muted">Add-ons stack on your plan's limits. Pick quantities, then check out once: each add-on becomes its own line you can cancel separately.</p>
      <table className="table" aria-labelledby="addons-h" data-testid="addons">
        <thead>
          <tr>
            <th scope="col">Add-on</th>
            <th scope="col">Price</th>
            <th scope="col">Needs</th>
            <th scope="col">You have</th>
            <th scope="col">Quantity to add</th>
          </tr>
        </thead>
        <tbody>
          {catalogue.addons.map((a) => {
            const needs = plans.find((p) => p.id === a.minimum_plan);
            const allowed = sortOf(basePlan) >= sortOf(a.minimum_plan);
            const have = sub.lines.filter((l) => l.product_id === a.id && LIVE.has(l.status)).reduce((n, l) => n + Number(l.quantity), 0);
            return (
              <tr key={a.id} data-addon={a.id}>
                <th scope="row">{a.name}</th>
                <td>
                  {fmtMoney(price(a))} / {cycle === "annual" ? "year" : "month"}
                </td>
                <td>{needs ? `${needs.name} plan` : a.minimum_plan}</td>
                <td>{have || "—"}</td>
                <td>
                  <input
                    className="qty"
                    type="number"
                    min={0}
                    max={100}
                    aria-label={`Quantity of ${a.name}`}
                    value={qty[a.id] ?? 0}
                    disabled={!manage || !allowed}
                    title={allowed ? undefined : `Needs the ${needs?.name ?? a.minimum_plan} plan or higher`}
                    onChange={(e) => setQty({ ...qty, [a.id]: Math.max(0, Math.min(100, Math.floor(Number(e.target.value) || 0))) })}
                  />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {manage && cart.length > 0 && (
        <div className="card" data-testid="cart">
          <h2>Your order</h2>
          <ul>
            {cart.map((l) => (
              <li key={l.id}>
                {l.quantity} × {l.name}: {fmtMoney(l.quantity * l.unitCents)}
              </li>
            ))}
          </ul>
          <p>
            Total: <strong data-testid="cart-total">{fmtMoney(cartTotal(cart))}</strong> per {cycle === "annual" ? "year" : "month"}
            {live ? ", prorated for the rest of the current period and charged now" : ""}.
          </p>
          <ErrorMessage error={checkout.error} />
          <button className="primary" onClick={() => checkout.mutate()} disabled={checkout.isPending}>
            {live ? "Add to subscription" : "Continue to checkout"}
          </button>
        </div>
      )}
    </>
  );
}

/** Shows what an upgrade charges now or a downgrade credits, and what it would suspend, before doing it. */
function PlanChange({ target, ent, onClose, onDone }: { target: Plan; ent: Entitlements; onClose: () => void; onDone: (msg: string) => void }) {
  const qc = useQueryClient();
  const [preview, setPreview] = useState<Change | null>(null);
  const ask = useMutation({ mutationFn: () => api.POST("/api/v1/billing/change-plan", { body: { plan: target.id, preview: true } }).then(data), onSuccess: setPreview });
  const apply = useMutation({
    mutationFn: () => api.POST("/api/v1/billing/change-plan", { body: { plan: target.id } }).then(data),
    onSuccess: (r) => {
      onDone(
        r.direction === "upgrade"
          ? `Upgraded to ${target.name}: ${fmtMoney(r.proration.charged_now_cents)} charged now; the new limits apply at once.`
          : `Moved to ${target.name}: ${fmtMoney(r.proration.credited_next_invoice_cents)} credited to your next invoice.`,
      );
      invalidateBilling(qc);
      onClose();
    },
  });
  if (!preview && !ask.isPending && !ask.error) ask.mutate();
  const extra: Record<string, number> = {};
  for (const [k, c] of Object.entries(ent.contributions)) extra[k] = c.addons.reduce((n, a) => n + Number(a.adds), 0);
  const over = overAfterChange(ent.usage, target.quotas, extra);
  const up = preview?.direction === "upgrade";
  return (
    <Modal title={`${up ? "Upgrade" : "Change"} to ${target.name}?`} onClose={onClose}>
      {!preview && !ask.error && <p role="status">Working out the proration…</p>}
      <ErrorMessage error={ask.error} />
      {preview && (
        <div data-testid="proration">
          {up ? (
            <p>
              You pay <strong>{fmtMoney(preview.proration.charged_now_cents)}</strong> now for the rest of this period; the new limits apply at once. From the next renewal it is{" "}
              {fmtMoney(preview.proration.new_price_cents)} per {preview.cycle === "annual" ? "year" : "month"}.
            </p>
          ) : (
            <p>
              It takes effect now. <strong>{fmtMoney(preview.proration.credited_next_invoice_cents)}</strong> of unused time is credited to your next invoice; from then on it is{" "}
              {fmtMoney(preview.proration.new_price_cents)} per {preview.cycle === "annual" ? "year" : "month"}.
            </p>
          )}
          {over.length > 0 && (
            <div className="error" role="note" data-testid="suspension-warning">
              <strong>Some of what you have does not fit {target.name}'s limits.</strong> The newest are suspended (kept, not running) until you free or buy capacity:
              <ul>
                {over.map((o) => (
                  <li key={o.quota}>
                    {quotaLabel(o.quota)}: {o.used} in use, {o.cap} allowed ({o.used - o.cap} suspended)
                  </li>
                ))}
              </ul>
              <p data-testid="deleted-at">
                Still suspended on <strong>{fmtTime(preview.delete_suspended_at)}</strong> ({target.name}'s {target.grace_days}-day grace from now), they are deleted (runners revoked).
              </p>
            </div>
          )}
          <p className="muted">Period ends {fmtDate(new Date(Date.now() + Number(preview.proration.remaining_seconds) * 1000).toISOString())}.</p>
        </div>
      )}
      <ErrorMessage error={apply.error} />
      <div className="row">
        <button type="button" autoFocus onClick={onClose}>
          Cancel
        </button>
        <button type="button" className={up ? "primary" : "danger"} disabled={!preview || apply.isPending} onClick={() => apply.mutate()}>
          {up ? `Upgrade to ${target.name}` : `Downgrade to ${target.name}`}
        </button>
      </div>
    </Modal>
  );
}
