import { Type, type Static } from "@sinclair/typebox";
import { httpUrlSchema } from "../shared/schema-parts.ts";

export const BROWSER_LITE_DEFAULTS = { wait_until: "load" } as const;

/** Browser Lite: load one page in a real browser. Runs on browser-capable runners, not on this engine. */
export const browserLiteConfigSchema = Type.Object(
  {
    url: httpUrlSchema,
    wait_until: Type.Optional(
      Type.Union([Type.Literal("load"), Type.Literal("domcontentloaded"), Type.Literal("networkidle")], { default: BROWSER_LITE_DEFAULTS.wait_until }),
    ),
    keyword: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: "Text the rendered page must contain" })),
    headers: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 256 }), Type.String({ maxLength: 8192 }))),
    viewport: Type.Optional(
      Type.Object(
        { width: Type.Integer({ minimum: 320, maximum: 3840 }), height: Type.Integer({ minimum: 240, maximum: 2160 }) },
        { additionalProperties: false },
      ),
    ),
    degraded_above_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 600_000 })),
  },
  { additionalProperties: false },
);
export type BrowserLiteConfig = Static<typeof browserLiteConfigSchema>;
