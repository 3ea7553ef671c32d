import { Type, type Static } from "@sinclair/typebox";
import { browserCommonFields } from "../../../schemas/checks/browser-fields.ts";
import { statusMatcherSchema } from "../http/http-schema.ts";
import { httpUrlSchema } from "../../../schemas/checks/schema-parts.ts";
import { secretHeadersSchema } from "../../../schemas/checks/secret-headers.ts";
import { browserDataFields } from "../../../schemas/checks/browser-data-fields.ts";
import { dataObject, flagField, msField, textField } from "../../../schemas/checks/data-fields.ts";
import { defineCheckSpec } from "../../../schemas/checks/check-spec.ts";

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

export const browserLiteDataSchema = dataObject("BrowserLiteData", {
  ...browserDataFields,
  ttfb_ms: msField("Navigation timing: from the start of navigation to the first byte of the document (redirects included), ms"),
  dom_content_loaded_ms: msField("Navigation timing: DOMContentLoaded finished, ms after navigation start"),
  load_ms: msField("Navigation timing: the load event finished, ms after navigation start; null when wait_until ended the check earlier"),
  lcp_ms: msField("Largest contentful paint, ms after navigation start, where the engine reports it (Chromium); null otherwise"),
  keyword_found: flagField("Whether the rendered text of the page contains keyword; null without a keyword"),
  keyword: textField("The keyword looked for (compared with case); a keyword_missing rule reads keyword_found only when it names this keyword"),
  keyword_case_sensitive: flagField("Whether the keyword was compared with case (always true here); null without a keyword"),
});

/** The browser_lite check type, as the registry (schemas/check-types.ts) lists it. */
export const browserLiteSpec = defineCheckSpec({
  type: "browser_lite",
  label: "Browser (Lite) — a real browser loads the page",
  summary: "A real browser loads a page without errors",
  runsOn: "browser",
  quota: "lite_browser",
  config: browserLiteConfigSchema,
  data: browserLiteDataSchema,
});
