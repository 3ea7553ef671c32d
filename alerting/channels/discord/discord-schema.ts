import { type Static, Type } from "@sinclair/typebox";
import { HttpUrl } from "../../../schemas/channels/channel-fields.ts";

/** Settings of a discord channel; browser-safe, so the dashboard validates with it too. */
export const discordConfig = Type.Object(
  { url: HttpUrl("Discord webhook URL, https://discord.com/api/webhooks/<id>/<token>") },
  { additionalProperties: false },
);
export type DiscordConfig = Static<typeof discordConfig>;
