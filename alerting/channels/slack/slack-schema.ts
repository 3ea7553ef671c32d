import { type Static, Type } from "@sinclair/typebox";
import { HttpUrl, urlIssues } from "../../../schemas/channels/channel-fields.ts";
import { defineChannelSpec } from "../../../schemas/channels/channel-spec.ts";

/** Settings of a slack channel; browser-safe, so the dashboard validates with it too. */
const slackConfig = Type.Object(
  { url: HttpUrl("Slack incoming webhook URL, https://hooks.slack.com/services/…; Slack-compatible servers (Mattermost) work too") },
  { additionalProperties: false },
);
export type SlackConfig = Static<typeof slackConfig>;

/** The slack channel type, as the registry (schemas/channel-types.ts) lists it. */
export const slackSpec = defineChannelSpec({
  type: "slack",
  label: "Slack",
  help: "Posts to a Slack (or Mattermost) incoming webhook.",
  config: slackConfig,
  secretFields: ["url"],
  messageFormat: { title: "plain", body: "slack" },
  validate: (config) => urlIssues("/url", config.url),
});
