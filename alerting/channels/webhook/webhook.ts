import { Webhook } from "standardwebhooks";
import { request } from "../http.ts";
import type { Channel } from "../types.ts";
import { toWebhookPayload } from "./payload.ts";
import { type WebhookConfig, webhookSpec } from "./webhook-schema.ts";

export { type WebhookConfig };

/**
 * The standardwebhooks library's signer for a secret: `whsec_<base64>` is the standard form; a
 * secret set before Watchpost used Standard Webhooks is any string, used as its raw bytes.
 */
const signer = (secret: string) => (secret.startsWith("whsec_") ? new Webhook(secret) : new Webhook(secret, { format: "raw" }));

/**
 * The `webhook-signature` value: one `v1,<base64>` per secret, space-separated, so that during a
 * rotation (secret + previous_secret) a receiver holding either one verifies.
 */
const signatures = (secrets: string[], id: string, at: Date, body: string) => secrets.map((s) => signer(s).sign(id, at, body)).join(" ");

export const webhook: Channel<WebhookConfig> = {
  type: "webhook",
  configSchema: webhookSpec.config,
  secretFields: webhookSpec.secretFields,
  validate: webhookSpec.validate,
  async send(event, config, ctx, template) {
    const body = JSON.stringify(toWebhookPayload(event, template));
    const at = ctx.clock.now();
    const secrets = config.secret ? [config.secret, ...(config.previous_secret ? [config.previous_secret] : [])] : [];
    const res = await request(ctx, "Webhook", config.url, {
      body,
      headers: {
        ...config.headers,
        "content-type": "application/json",
        "x-watchpost-event": event.kind,
        // Standard Webhooks (standardwebhooks.com): the id is the same on every retry of one delivery.
        "webhook-id": event.idempotencyKey,
        "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
        ...(secrets.length ? { "webhook-signature": signatures(secrets, event.idempotencyKey, at, body) } : {}),
      },
    });
    return { status: res.status };
  },
};
