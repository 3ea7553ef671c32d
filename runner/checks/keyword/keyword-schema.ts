import { Type, type Static } from "@sinclair/typebox";
import { httpConfigFields, httpDataFields, validateHttpConfig } from "../http/http-schema.ts";
import { dataObject, flagField, textField } from "../../../schemas/checks/data-fields.ts";
import { defineCheckSpec } from "../../../schemas/checks/check-spec.ts";

export const KEYWORD_DEFAULTS = { case_sensitive: false, mode: "present" } as const;

const keywordConfigSchema = Type.Object(
  {
    ...httpConfigFields,
    keyword: Type.String({ minLength: 1, maxLength: 1024 }),
    case_sensitive: Type.Optional(Type.Boolean({ default: KEYWORD_DEFAULTS.case_sensitive })),
    mode: Type.Optional(Type.Union([Type.Literal("present"), Type.Literal("absent")], { default: KEYWORD_DEFAULTS.mode })),
  },
  { additionalProperties: false },
);
export type KeywordConfig = Static<typeof keywordConfigSchema>;

const keywordDataSchema = dataObject("KeywordData", {
  ...httpDataFields,
  keyword_found: flagField("Whether the keyword occurs in the first 1 MiB of the body (decoded as UTF-8)"),
  keyword: textField("The keyword looked for (a keyword_missing rule reads keyword_found only when it names this keyword)"),
  keyword_case_sensitive: flagField("Whether the keyword was compared with case"),
});

/** The keyword check type, as the registry (schemas/check-types.ts) lists it. */
export const keywordSpec = defineCheckSpec({
  type: "keyword",
  label: "Keyword — a page contains (or lacks) a word",
  summary: "An HTTP(S) response body contains, or lacks, a keyword",
  runsOn: "worker",
  quota: "monitors",
  config: keywordConfigSchema,
  data: keywordDataSchema,
  reportsResponseTime: true,
  validate: (config) => [
    ...validateHttpConfig(config),
    ...(config.method === "HEAD" ? [{ path: "method", message: "a keyword check reads the body and a HEAD response has none: use GET (or another method)" }] : []),
  ],
});
