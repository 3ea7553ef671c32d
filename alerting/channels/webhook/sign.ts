import { Webhook } from "standardwebhooks";

/**
 * The standardwebhooks library's signer for a secret: `whsec_<base64>` is the standard form; a
 * secret set before Watchpost used Standard Webhooks is any string, used as its raw bytes.
 */
const signer = (secret: string) => (secret.startsWith("whsec_") ? new Webhook(secret) : new Webhook(secret, { format: "raw" }));

/**
 * The Standard Webhooks headers (standardwebhooks.com) of one delivery attempt: `webhook-id` (the same on
 * every retry), `webhook-timestamp`, and `webhook-signature` with one `v1,<base64>` per secret,
 * space-separated, so that during a rotation a receiver holding either one verifies (none without secrets).
 */
export function standardWebhookHeaders(id: string, at: Date, body: string, secrets: string[]): Record<string, string> {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    ...(secrets.length ? { "webhook-signature": secrets.map((s) => signer(s).sign(id, at, body)).join(" ") } : {}),
  };
}
