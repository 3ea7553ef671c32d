import { request } from "../http.ts";
import type { Channel } from "../types.ts";
import { toWebhookPayload } from "./payload.ts";
import { standardWebhookHeaders } from "./sign.ts";
import { type WebhookConfig, webhookSpec } from "./webhook-schema.ts";

export { type WebhookConfig };

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
        // Standard Webhooks: the id is the same on every retry of one delivery; one signature per secret.
        ...standardWebhookHeaders(event.idempotencyKey, at, body, secrets),
      },
    });
    return { status: res.status };
  },
};
