import { Elysia, t } from "elysia";
import { cancelLine, cancelOverlap, changePlan, checkout, dismissOverlap, resumeLine, type BillingDeps } from "../../../billing/lifecycle.ts";
import { providerFromConfig } from "../../../billing/provider/from-config.ts";
import { activeAddonLines, catalogue, openOverlaps, singleLineView, subscriptionView } from "../../../billing/views.ts";
import { receiveWebhook } from "../../../billing/webhooks.ts";
import type { ApiDeps } from "../../context.ts";
import { authPlugin } from "../../middleware/auth.ts";
import { IdParams, Int, Obj, PaginationQuery, paginated } from "../../schemas/common.ts";
import { pageOf } from "../../schemas/page-of.ts";
import { CatalogueView, ChangePlanBody, CheckoutBody, CheckoutResult, LineView, OverlapView, PlanChangeView, SubscriptionView } from "./schemas.ts";

const Done = t.Object({ ok: t.Literal(true) });
const WebhookAck = t.Object({ ok: t.Literal(true), outcome: t.Union([t.Literal("applied"), t.Literal("duplicate"), t.Literal("stale"), t.Literal("ignored")]) });
const WEBHOOK_ERROR_CODES = { 400: "VALIDATION_ERROR", 401: "UNAUTHENTICATED", 404: "NOT_FOUND" } as const;

/** Subscription state, checkout, plan changes, line cancellation, overlap notices and the provider's webhooks. */
export const billingRoutes = (deps: ApiDeps) => {
  const provider = providerFromConfig(deps.config);
  const billing: BillingDeps = { sql: deps.sql, provider, log: deps.log };
  // The provider's notion of now: prorations must be computed on the clock the provider charges by.
  const now = () => deps.billingClock?.() ?? new Date();
  const lineAnswer = (orgId: string, line: Parameters<typeof singleLineView>[2]) => singleLineView(deps.sql, orgId, line, provider, deps.log);
  return new Elysia({ prefix: "/billing", detail: { tags: ["billing"] } })
    .post(
      "/webhooks/paddle",
      async ({ request }) => {
        // The signature covers the exact bytes, so the body is read raw, before any JSON parsing.
        const result = await receiveWebhook(deps.sql, provider, deps.log, await request.text(), request.headers);
        if ("error" in result) return Response.json({ error: result.error, code: WEBHOOK_ERROR_CODES[result.status] }, { status: result.status });
        return Response.json({ ok: true, outcome: result.outcome } satisfies typeof WebhookAck.static);
      },
      {
        parse: "none",
        response: { 200: WebhookAck },
        detail: {
          summary: "Payment-provider webhooks (Paddle-Signature verified; unauthenticated)",
          description: "400 when the event cannot be read, 401 when the signature does not verify, 404 when billing is not configured on this deployment.",
          security: [] as never[],
          "x-errors": ["400", "401", "404", "413"],
        },
      },
    )
    .use(authPlugin)
    .guard({ requires: "member" }, (app) =>
      app
        .get("/plans", () => catalogue(deps.sql), { response: { 200: CatalogueView }, detail: { summary: "Plans with monthly and annual prices, and the add-ons" } })
        .get("/subscription", ({ actor }) => subscriptionView(deps.sql, actor.orgId, provider, deps.log), {
          response: { 200: SubscriptionView },
          detail: { summary: "Subscription status, payment banner, plan row with included quotas, and every line" },
        })
        .get("/addons/active", async ({ actor, query }) => pageOf(await activeAddonLines(deps.sql, actor.orgId, provider, deps.log), query), {
          query: Obj(PaginationQuery),
          response: { 200: paginated(LineView) },
          detail: { summary: "Active add-on lines (including those in grace or ending at the period end)" },
        })
        .get("/overlaps", async ({ actor, query }) => pageOf(await openOverlaps(deps.sql, actor.orgId), query), {
          query: Obj(PaginationQuery),
          response: { 200: paginated(OverlapView) },
          detail: { summary: "Pending overlap notices" },
        }),
    )
    .guard({ requires: "billing:manage" }, (app) =>
      app
        .post("/checkout", ({ actor, body }) => checkout(billing, actor, { ...body, cycle: body.cycle ?? "monthly" }), {
          body: CheckoutBody,
          response: { 200: CheckoutResult },
          detail: { summary: "Buy a plan and/or add-ons: a hosted checkout URL, or charged to the existing subscription at once" },
        })
        .post("/change-plan", ({ actor, body }) => changePlan(billing, actor, body, now()), {
          body: ChangePlanBody,
          response: { 200: PlanChangeView },
          detail: { summary: "Upgrade (prorated difference charged now) or downgrade (prorated credit on the next invoice); preview:true only computes" },
        })
        .post("/lines/:id/cancel", async ({ actor, params }) => lineAnswer(actor.orgId, await cancelLine(billing, actor, params.id)), {
          params: IdParams,
          response: { 200: LineView },
          detail: { summary: "Cancel one line at the end of its period (pending_cancellation)" },
        })
        .post("/lines/:id/resume", async ({ actor, params }) => lineAnswer(actor.orgId, await resumeLine(billing, actor, params.id, now())), {
          params: IdParams,
          response: { 200: LineView },
          detail: { summary: "Undo a pending cancellation before the period ends" },
        })
        .post(
          "/overlaps/:id/cancel",
          async ({ actor, params }) => {
            const { line, credit_cents } = await cancelOverlap(billing, actor, params.id, now());
            return { line: await lineAnswer(actor.orgId, line), credit_cents };
          },
          {
            params: IdParams,
            response: { 200: t.Object({ line: LineView, credit_cents: Int({ description: "Unused balance credited to the next invoice" }) }) },
            detail: { summary: "Cancel the overlapping add-on at the next renewal; the unused balance is credited prorated" },
          },
        )
        .post(
          "/overlaps/:id/dismiss",
          async ({ actor, params }) => {
            await dismissOverlap(billing, actor, params.id);
            return { ok: true as const };
          },
          { params: IdParams, response: { 200: Done }, detail: { summary: "Keep the add-on on top of the plan" } },
        ),
    );
};
