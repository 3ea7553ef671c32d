import type { Sql } from "../db/client.ts";
import type { Logger } from "../core/log.ts";
import type { BillingProvider } from "./provider/types.ts";
import { WebhookRejected } from "./provider/types.ts";
import { reconcileSuspensions } from "./suspension.ts";
import { applyProviderEvent, type SyncOutcome } from "./sync.ts";

export type WebhookResult = { status: 200; outcome: SyncOutcome; eventId: string } | { status: 400 | 401 | 404; error: string };

/**
 * Verifies a provider webhook on its raw body, then applies it once per event id. A bad signature
 * is 401 (the provider retries, an attacker learns nothing); duplicates and stale snapshots are 200.
 */
export async function receiveWebhook(sql: Sql, provider: BillingProvider | null, log: Logger, rawBody: string, headers: Headers, now = new Date()): Promise<WebhookResult> {
  if (!provider) return { status: 404, error: "Billing is not configured on this deployment" };
  let event;
  try {
    event = provider.parseWebhook(rawBody, headers, now);
  } catch (err) {
    if (!(err instanceof WebhookRejected)) throw err;
    log.warn({ op: "billing.webhook", reason: err.message }, "webhook refused");
    return { status: 401, error: `Webhook refused: ${err.message}` };
  }
  const { outcome, orgId } = await applyProviderEvent(sql, provider.name, event, JSON.parse(rawBody));
  if (outcome === "applied" && orgId) await reconcileSuspensions(sql, orgId, event.occurredAt);
  log.info({ op: "billing.webhook", eventId: event.id, type: event.type, outcome, orgId }, "webhook processed");
  return { status: 200, outcome, eventId: event.id };
}
