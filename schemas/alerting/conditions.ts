/** The alert rule conditions a rule can use, as TypeBox (the API, the dashboard's rule form and the engine share them). */
import { type Static, type TObject, Type } from "@sinclair/typebox";

const Status = Type.Union([Type.Literal("up"), Type.Literal("down"), Type.Literal("degraded"), Type.Literal("timeout")]);
const strict = { additionalProperties: false } as const;

export const conditionSchemas = {
  status_change: Type.Object(
    {
      type: Type.Literal("status_change"),
      to: Type.Array(Status, { minItems: 1, uniqueItems: true, description: "Fires on any of these statuses" }),
      from: Type.Optional(Type.Array(Status, { uniqueItems: true, description: "Accepted and stored; evaluation matches on `to` only" })),
    },
    strict,
  ),
  metric_threshold: Type.Object(
    {
      type: Type.Literal("metric_threshold"),
      metric: Type.String({ minLength: 1, maxLength: 100, description: "response_time (alias duration_ms) or any numeric field of the result data" }),
      operator: Type.Union([Type.Literal("gt"), Type.Literal("lt"), Type.Literal("eq"), Type.Literal("neq"), Type.Literal("gte"), Type.Literal("lte")]),
      threshold: Type.Number(),
    },
    strict,
  ),
  ssl_expiry: Type.Object({ type: Type.Literal("ssl_expiry"), days_before: Type.Integer({ minimum: 1, maximum: 3650 }) }, strict),
  domain_expiry: Type.Object({ type: Type.Literal("domain_expiry"), days_before: Type.Integer({ minimum: 1, maximum: 3650 }) }, strict),
  keyword_missing: Type.Object({ type: Type.Literal("keyword_missing"), keyword: Type.String({ minLength: 1, maxLength: 1000 }) }, strict),
  certificate_changed: Type.Object({ type: Type.Literal("certificate_changed") }, strict),
  monitoring_unavailable: Type.Object({ type: Type.Literal("monitoring_unavailable") }, strict),
} satisfies Record<string, TObject>;

export type ConditionType = keyof typeof conditionSchemas;
export type Condition = { [K in ConditionType]: Static<(typeof conditionSchemas)[K]> }[ConditionType];
export type ConditionOf<K extends ConditionType> = Static<(typeof conditionSchemas)[K]>;
export const conditionTypes = Object.keys(conditionSchemas) as ConditionType[];
