import { Type, type Static } from "@sinclair/typebox";
import { browserCommonFields } from "../../../schemas/checks/browser-fields.ts";
import { statusMatcherSchema } from "../http/http-schema.ts";
import { httpUrlSchema } from "../../../schemas/checks/schema-parts.ts";
import { secretHeadersSchema } from "../../../schemas/checks/secret-headers.ts";

export const BROWSER_LITE_DEFAULTS = { wait_until: "load", expected_status: ["200-399"] } as const;

/** Browser Lite: load one page in a real browser and judge what it did. */
export const browserLiteConfigSchema = Type.Object(
  {
    url: httpUrlSchema,
    wait_until: Type.Optional(
      Type.Union([Type.Literal("load"), Type.Literal("domcontentloaded"), Type.Literal("networkidle")], {
        default: BROWSER_LITE_DEFAULTS.wait_until,
        description: "Page state that ends the load: the load event, DOMContentLoaded, or no network traffic for 500 ms",
      }),
    ),
    keyword: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: "Text the rendered page must contain" })),
    headers: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 256 }), Type.String({ maxLength: 8192 }), { description: "Extra request headers sent with every request of the page" })),
    secret_headers: secretHeadersSchema,
    expected_status: Type.Optional(
      Type.Array(statusMatcherSchema, { minItems: 1, maxItems: 50, default: BROWSER_LITE_DEFAULTS.expected_status, description: "Accepted statuses of the main document" }),
    ),
    ...browserCommonFields,
  },
  { additionalProperties: false },
);
export type BrowserLiteConfig = Static<typeof browserLiteConfigSchema>;
