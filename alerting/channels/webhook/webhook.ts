import { createHmac } from "node:crypto";
import type { ValidationIssue } from "../../../core/errors.ts";
import { request } from "../http.ts";
import { urlIssues } from "../../../schemas/channels/channel-fields.ts";
import type { Channel } from "../types.ts";
import { toWebhookPayload } from "./payload.ts";
import { webhookConfig, type WebhookConfig } from "./webhook-schema.ts";

export { webhookConfig, type WebhookConfig };

/** Headers we set or the HTTP client owns; a config header may not replace them. */
const reserved = new Set(["host", "content-type", "content-length", "transfer-encoding", "connection", "user-agent"]);

/** `sha256=` + hex HMAC-SHA256 of "<timestamp>.<rawBody>"; the timestamp inside stops replays of old bodies. */
export const signWebhook = (secret: string, timestamp: string, rawBody: string) =>
  `sha256=${createHmac("sha256", secret).update(`${timestamp}.${rawBody}`).digest("hex")}`;

export const webhook: Channel<WebhookConfig> = {
  type: "webhook",
  configSchema: webhookConfig,
  // The URL too: generic receivers (Zapier, n8n, Make…) carry their credential in the path or query.
  secretFields: ["url", "secret", "headers"],
  validate(config) {
    const issues: ValidationIssue[] = urlIssues("/url", config.url);
    for (const name of Object.keys(config.headers ?? {})) {
      const lower = name.toLowerCase();
      if (reserved.has(lower) || lower.startsWith("x-watchpost-")) issues.push({ path: `/headers/${name}`, message: "is set by Watchpost and cannot be overridden" });
    }
    return issues;
  },
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
