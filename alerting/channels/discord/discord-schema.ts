import { type Static, Type } from "@sinclair/typebox";
import { HttpUrl, urlIssues } from "../../../schemas/channels/channel-fields.ts";
import { defineChannelSpec } from "../../../schemas/channels/channel-spec.ts";

/** Settings of a discord channel; browser-safe, so the dashboard validates with it too. */
const discordConfig = Type.Object(
  { url: HttpUrl("Discord webhook URL, https://discord.com/api/webhooks/<id>/<token>") },
  { additionalProperties: false },
);
export type DiscordConfig = Static<typeof discordConfig>;

/** The discord channel type, as the registry (schemas/channel-types.ts) lists it. */
export const discordSpec = defineChannelSpec({
  type: "discord",
  label: "Discord",
  help: "Posts to a Discord channel webhook.",
  config: discordConfig,
  secretFields: ["url"],
  messageFormat: { title: "markdown", body: "markdown" },
  validate: (config) => urlIssues("/url", config.url),
});
