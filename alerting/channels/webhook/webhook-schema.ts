import { type Static, Type } from "@sinclair/typebox";
import { HttpUrl, urlIssues } from "../../../schemas/channels/channel-fields.ts";
import type { Issue } from "../../../schemas/validation.ts";
import { defineChannelSpec } from "../../../schemas/channels/channel-spec.ts";

/** Settings of a webhook channel; browser-safe, so the dashboard validates with it too. */
const webhookConfig = Type.Object(
  {
    url: HttpUrl("Where to POST the JSON payload; secret (it may carry the receiver's token): shown masked"),
    secret: Type.Optional(Type.String({ minLength: 16, maxLength: 256, description: "Signs each delivery (X-Watchpost-Signature); at least 16 characters" })),
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

/** The webhook channel type, as the registry (schemas/channel-types.ts) lists it. */
export const webhookSpec = defineChannelSpec({
  type: "webhook",
  label: "Webhook",
  help: "POSTs a signed JSON payload to your own endpoint.",
  config: webhookConfig,
  // The URL too: generic receivers (Zapier, n8n, Make…) carry their credential in the path or query.
  secretFields: ["url", "secret", "headers"],
  validate(config) {
    const issues: Issue[] = urlIssues("/url", config.url);
    for (const name of Object.keys(config.headers ?? {})) {
      const lower = name.toLowerCase();
      if (reserved.has(lower) || lower.startsWith("x-watchpost-")) issues.push({ path: `/headers/${name}`, message: "is set by Watchpost and cannot be overridden" });
    }
    return issues;
  },
});
