import { createHmac } from "node:crypto";
import { request } from "../http.ts";
import type { Channel } from "../types.ts";
import { toWebhookPayload } from "./payload.ts";
import { type WebhookConfig, webhookSpec } from "./webhook-schema.ts";

export { type WebhookConfig };

/** `sha256=` + hex HMAC-SHA256 of "<timestamp>.<rawBody>"; the timestamp inside stops replays of old bodies. */
export const signWebhook = (secret: string, timestamp: string, rawBody: string) =>
  `sha256=${createHmac("sha256", secret).update(`${timestamp}.${rawBody}`).digest("hex")}`;

export const webhook: Channel<WebhookConfig> = {
  type: "webhook",
  configSchema: webhookSpec.config,
  secretFields: webhookSpec.secretFields,
  validate: webhookSpec.validate,
  async send(event, config, ctx) {
    const body = JSON.stringify(toWebhookPayload(event));
    const timestamp = String(Math.floor(ctx.clock.now().getTime() / 1000));
    const res = await request(ctx, "Webhook", config.url, {
      body,
      headers: {
        ...config.headers,
        "content-type": "application/json",
        "x-watchpost-event": event.kind,
        "x-watchpost-delivery": event.idempotencyKey,
        "x-watchpost-timestamp": timestamp,
        ...(config.secret ? { "x-watchpost-signature": signWebhook(config.secret, timestamp, body) } : {}),
      },
    });
    return { status: res.status };
  },
};
