import type { TSchema } from "@sinclair/typebox";
import { t } from "elysia";
import { Int } from "../../schemas/common.ts";

/** `X or null` as a union: OpenAPI 3.1 has no `nullable`. */
const OrNull = <S extends TSchema>(schema: S) => t.Union([schema, t.Null()]);

const Cents = Int({ description: "US dollar cents" });
const Cycle = t.Union([t.Literal("monthly"), t.Literal("annual")]);
const LineStatus = t.Union([t.Literal("active"), t.Literal("grace_period"), t.Literal("past_due"), t.Literal("pending_cancellation"), t.Literal("cancelled")]);

export const LineView = t.Object({
  id: t.String(),
  kind: t.Union([t.Literal("plan"), t.Literal("addon")]),
  product_id: t.String(),
  product_name: t.String(),
  quantity: Int(),
  unit_price_cents: Cents,
  price_cents: Cents,
  currency: t.String(),
  cycle: Cycle,
  status: LineStatus,
  period_start: t.String({ format: "date-time" }),
  period_end: t.String({ format: "date-time" }),
  next_renewal_at: OrNull(t.String({ format: "date-time", description: "Null when the line is ending or ended" })),
  cancel_at: OrNull(t.String({ format: "date-time" })),
  grace_ends_at: OrNull(t.String({ format: "date-time" })),
  invoice_url: OrNull(
    t.String({
      description:
        "Hosted invoice of the current period at the payment provider (the subscription's latest paid transaction); the same in every answer that carries a line (subscription, active add-ons, cancel, resume, overlap cancel). Null when the provider has none or does not answer",
    }),
  ),
});

export const SubscriptionView = t.Object({
  billing_enabled: t.Boolean(),
  status: t.Union([t.Literal("active"), t.Literal("grace_period"), t.Literal("past_due"), t.Literal("pending_cancellation"), t.Literal("cancelled")], {
    description: "The plan line's state (spec table); active when never subscribed (the Free plan is in force) and on a self-hosted deployment (BILLING=off)",
  }),
  banner: OrNull(
    t.Object({
      kind: t.Literal("payment_failed"),
      grace_ends_at: t.String({ format: "date-time" }),
      payment_url: OrNull(
        t.String({
          description:
            "The payment provider's page where the owner updates the payment method and pays the failed renewal (Paddle's update-payment-method link); paying there ends the grace period. Null when the provider does not answer",
        }),
      ),
      invoice_url: OrNull(
        t.String({
          description:
            "Hosted page of the failed renewal's open invoice at the payment provider: the amount due, its period and a Pay button that charges the card on file; paying there ends the grace period. Null when nothing is open (the subscription was cancelled) or the provider does not answer",
        }),
      ),
    }),
  ),
  plan: t.Object({ id: t.String(), name: t.String(), included_quotas: t.Record(t.String(), t.Number()), line_id: OrNull(t.String()) }),
  lines: t.Array(LineView),
});

export const CatalogueView = t.Object({
  currency: t.String(),
  plans: t.Array(
    t.Object({
      id: t.String(),
      name: t.String(),
      monthly_price_cents: Cents,
      annual_price_cents: Cents,
      annual_monthly_equivalent_cents: Cents,
      grace_days: Int(),
      quotas: t.Record(t.String(), t.Number()),
    }),
  ),
  addons: t.Array(
    t.Object({ id: t.String(), name: t.String(), monthly_price_cents: Cents, annual_price_cents: Cents, minimum_plan: t.String(), grants: t.Record(t.String(), t.Number()) }),
  ),
});

export const CheckoutBody = t.Object(
  {
    plan: t.Optional(t.String({ description: "starter, pro or business" })),
    addons: t.Optional(t.Array(t.Object({ id: t.String(), quantity: Int({ minimum: 1, maximum: 100, default: 1 }) }, { additionalProperties: false }), { maxItems: 12 })),
    cycle: t.Optional(Cycle),
  },
  { additionalProperties: false },
);

export const CheckoutResult = t.Object({
  checkout_url: OrNull(t.String({ description: "Hosted checkout to send the user to; null when add-ons were added to the existing subscription" })),
  transaction_id: OrNull(t.String()),
  applied: t.Boolean({ description: "True when the change was charged to the existing subscription at once" }),
});

export const ChangePlanBody = t.Object(
  { plan: t.String(), preview: t.Optional(t.Boolean({ description: "Only compute the proration" })) },
  { additionalProperties: false },
);

export const PlanChangeView = t.Object({
  direction: t.Union([t.Literal("upgrade"), t.Literal("downgrade")]),
  from: t.String(),
  to: t.String(),
  cycle: Cycle,
  proration: t.Object({
    old_price_cents: Cents,
    new_price_cents: Cents,
    period_seconds: Int(),
    remaining_seconds: Int(),
    amount_cents: Int({ description: "round((new − old) × remaining / period); positive is charged now, negative credited" }),
    charged_now_cents: Cents,
    credited_next_invoice_cents: Cents,
  }),
  delete_suspended_at: t.String({
    format: "date-time",
    description: "Resources this change suspends over the new plan's quotas are deleted at this time if still suspended then: the new plan's grace days after the change, on the payment provider's clock",
  }),
  applied: t.Boolean(),
});

export const OverlapView = t.Object({
  id: t.String(),
  line_id: t.String(),
  addon_id: t.String(),
  addon_name: t.String(),
  plan_id: t.String(),
  overlapping_quotas: t.Array(t.String()),
  created_at: t.String({ format: "date-time" }),
});
