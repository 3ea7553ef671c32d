import { type Static, Type } from "@sinclair/typebox";
import { defineChannelSpec } from "../../../schemas/channels/channel-spec.ts";

/** Settings of an opsgenie channel; browser-safe, so the dashboard validates with it too. */
const opsgenieConfig = Type.Object(
  {
    api_key: Type.String({ minLength: 8, maxLength: 128, description: "API key of an Opsgenie API integration" }),
    region: Type.Optional(Type.Union([Type.Literal("us"), Type.Literal("eu")], { default: "us", description: "Opsgenie instance: us or eu" })),
    priority: Type.Optional(Type.Union(["P1", "P2", "P3", "P4", "P5"].map((p) => Type.Literal(p)), { description: "Priority of created alerts; Opsgenie's default (P3) when unset" })),
    tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { maxItems: 20 })),
  },
  { additionalProperties: false },
);
export type OpsgenieConfig = Static<typeof opsgenieConfig>;

/** The opsgenie channel type, as the registry (schemas/channel-types.ts) lists it. */
export const opsgenieSpec = defineChannelSpec({
  type: "opsgenie",
  label: "Opsgenie",
  help: "Opens, acknowledges and closes Opsgenie alerts.",
  config: opsgenieConfig,
  secretFields: ["api_key"],
  messageFormat: { title: "plain", body: "plain" },
  paging: true,
});
