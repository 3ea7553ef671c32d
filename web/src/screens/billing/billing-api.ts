import type { useQueryClient } from "@tanstack/react-query";
import type { paths } from "../../api/client";

/** The billing screens' API shapes and cache helper (shared by billing.tsx and checkout.tsx). */
export type Subscription = paths["/api/v1/billing/subscription"]["get"]["responses"]["200"]["content"]["application/json"];
export type Catalogue = paths["/api/v1/billing/plans"]["get"]["responses"]["200"]["content"]["application/json"];
export type Entitlements = paths["/api/v1/entitlements"]["get"]["responses"]["200"]["content"]["application/json"];

export const LIVE = new Set(["active", "grace_period", "pending_cancellation"]);

/** Every billing query, refetched after any change (webhooks may land a moment later). */
export const invalidateBilling = (qc: ReturnType<typeof useQueryClient>) => {
  for (const key of [["billing"], ["entitlements"], ["runners"], ["status-pages"], ["monitors"], ["session"], ["orgs"]]) void qc.invalidateQueries({ queryKey: key });
};
