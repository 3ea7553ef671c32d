import { Type, type Static } from "@sinclair/typebox";
import { httpConfigFields } from "../http/http-schema.ts";

export const KEYWORD_DEFAULTS = { case_sensitive: false, mode: "present" } as const;

export const keywordConfigSchema = Type.Object(
  {
    ...httpConfigFields,
    keyword: Type.String({ minLength: 1, maxLength: 1024 }),
    case_sensitive: Type.Optional(Type.Boolean({ default: KEYWORD_DEFAULTS.case_sensitive })),
    mode: Type.Optional(Type.Union([Type.Literal("present"), Type.Literal("absent")], { default: KEYWORD_DEFAULTS.mode })),
  },
  { additionalProperties: false },
);
export type KeywordConfig = Static<typeof keywordConfigSchema>;
