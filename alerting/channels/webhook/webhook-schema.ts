import { type Static, Type } from "@sinclair/typebox";
import { HttpUrl, urlIssues } from "../../../schemas/channels/channel-fields.ts";
import type { Issue } from "../../../schemas/validation.ts";
import { defineChannelSpec } from "../../../schemas/channels/channel-spec.ts";

/** Settings of a webhook channel; browser-safe, so the dashboard validates with it too. */
const webhookConfig = Type.Object(
  {
    url: HttpUrl("Where to POST the JSON payload; secret (it may carry the receiver's token): shown masked"),
    secret: Type.Optional(
      Type.String({
        minLength: 16,
        maxLength: 256,
        description: "Signs each delivery the Standard Webhooks way (webhook-signature): whsec_ + base64 of 24 to 64 random bytes. Any other string of 16+ characters (set before Standard Webhooks) signs as its raw bytes",
      }),
    ),
    previous_secret: Type.Optional(
      Type.String({
        minLength: 16,
        maxLength: 256,
        description: "During a rotation, the secret being replaced (or the current secret's mask, as shown): deliveries carry a signature for each secret until this is removed",
      }),
    ),
    headers: Type.Optional(
      Type.Record(Type.String({ pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" }), Type.String({ pattern: "^[^\\r\\n]*$", maxLength: 1024 }), {
        maxProperties: 20,
        additionalProperties: false,
        description: "Extra request headers, e.g. Authorization; values are secret",
      }),
    ),
  },
  { additionalProperties: false },
);
export type WebhookConfig = Static<typeof webhookConfig>;

/** Headers we set or the HTTP client owns; a config header may not replace them. */
const reserved = new Set(["host", "content-type", "content-length", "transfer-encoding", "connection", "user-agent"]);

/** A `whsec_` secret must be what Standard Webhooks libraries can read: base64 of at least 24 bytes. */
function secretIssues(path: string, secret: string | undefined): Issue[] {
  if (secret === undefined || !secret.startsWith("whsec_")) return [];
  const b64 = secret.slice("whsec_".length);
  const ok = /^[A-Za-z0-9+/]+={0,2}$/.test(b64) && b64.length % 4 === 0 && atob(b64).length >= 24 && atob(b64).length <= 64;
  return ok ? [] : [{ path, message: "a whsec_ secret must be whsec_ followed by base64 of 24 to 64 bytes" }];
}

/** The webhook channel type, as the registry (schemas/channel-types.ts) lists it. */
export const webhookSpec = defineChannelSpec({
  type: "webhook",
  label: "Webhook",
  help: "POSTs a signed JSON payload to your own endpoint.",
  config: webhookConfig,
  // The URL too: generic receivers (Zapier, n8n, Make…) carry their credential in the path or query.
  secretFields: ["url", "secret", "previous_secret", "headers"],
  messageFormat: { title: "plain", body: "plain" },
  // Rotating: PATCH { secret: <new>, previous_secret: <the mask of the current secret, as shown> }.
  rotatesFrom: { previous_secret: "secret" },
  validate(config) {
    const issues: Issue[] = [...urlIssues("/url", config.url), ...secretIssues("/secret", config.secret), ...secretIssues("/previous_secret", config.previous_secret)];
    if (config.previous_secret !== undefined && config.secret === undefined) issues.push({ path: "/previous_secret", message: "needs a secret: it is the one being replaced" });
    else if (config.previous_secret !== undefined && config.previous_secret === config.secret) issues.push({ path: "/previous_secret", message: "is the same as the secret" });
    for (const name of Object.keys(config.headers ?? {})) {
      const lower = name.toLowerCase();
      if (reserved.has(lower) || lower.startsWith("x-watchpost-") || lower.startsWith("webhook-")) issues.push({ path: `/headers/${name}`, message: "is set by Watchpost and cannot be overridden" });
    }
    return issues;
  },
});
