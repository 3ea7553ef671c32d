import { type Static, Type } from "@sinclair/typebox";
import { HttpUrl, urlIssues } from "../../../schemas/channels/channel-fields.ts";
import { defineChannelSpec } from "../../../schemas/channels/channel-spec.ts";

/** Settings of a teams channel; browser-safe, so the dashboard validates with it too. */
const teamsConfig = Type.Object(
  { url: HttpUrl("Microsoft Teams Workflows (Power Automate) webhook URL, or a legacy incoming-webhook URL") },
  { additionalProperties: false },
);
export type TeamsConfig = Static<typeof teamsConfig>;

/** The teams channel type, as the registry (schemas/channel-types.ts) lists it. */
export const teamsSpec = defineChannelSpec({
  type: "teams",
  label: "Microsoft Teams",
  help: "Posts an Adaptive Card to a Microsoft Teams Workflows webhook.",
  config: teamsConfig,
  secretFields: ["url"],
  messageFormat: { title: "markdown", body: "markdown" },
  validate: (config) => urlIssues("/url", config.url),
});
