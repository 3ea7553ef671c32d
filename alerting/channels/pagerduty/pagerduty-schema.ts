import { type Static, Type } from "@sinclair/typebox";
import { defineChannelSpec } from "../../../schemas/channels/channel-spec.ts";

const severities = ["critical", "error", "warning", "info"] as const;

/** Settings of a pagerduty channel; browser-safe, so the dashboard validates with it too. */
const pagerdutyConfig = Type.Object(
  {
    routing_key: Type.String({ pattern: "^[A-Za-z0-9]{32}$", description: "Events API v2 integration (routing) key, 32 characters" }),
    severity: Type.Optional(Type.Union(severities.map((s) => Type.Literal(s)), { default: "critical", description: "Severity of triggered incidents" })),
  },
  { additionalProperties: false },
);
export type PagerdutyConfig = Static<typeof pagerdutyConfig>;

/** The pagerduty channel type, as the registry (schemas/channel-types.ts) lists it. */
export const pagerdutySpec = defineChannelSpec({
  type: "pagerduty",
  label: "PagerDuty",
  help: "Opens, acknowledges and resolves PagerDuty incidents (Events API v2).",
  config: pagerdutyConfig,
  secretFields: ["routing_key"],
  messageFormat: { title: "plain", body: "plain" },
  paging: true,
});
