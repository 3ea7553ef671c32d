// Compatibility: rule input is pure and lives in schemas/alerting/rule-input.ts (P5 deletes this file).
export { describeMetrics, normaliseRule, scopeSchemas } from "../../schemas/alerting/rule-input.ts";
export type { ChannelBinding, RuleDefinition, RuleInput, Scope } from "../../schemas/alerting/rule-input.ts";
