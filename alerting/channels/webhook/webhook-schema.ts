import { type Static, Type } from "@sinclair/typebox";
import { HttpUrl } from "../../../schemas/channels/channel-fields.ts";

/** Settings of a webhook channel; browser-safe, so the dashboard validates with it too. */
export const webhookConfig = Type.Object(
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
