import { type Static, Type } from "@sinclair/typebox";
import { HttpUrl } from "../../../schemas/channels/channel-fields.ts";

/** Settings of a slack channel; browser-safe, so the dashboard validates with it too. */
export const slackConfig = Type.Object(
  { url: HttpUrl("Slack incoming webhook URL, https://hooks.slack.com/services/…; Slack-compatible servers (Mattermost) work too") },
  { additionalProperties: false },
);
export type SlackConfig = Static<typeof slackConfig>;
