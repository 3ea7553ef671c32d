import { type Static, Type } from "@sinclair/typebox";
import { HttpUrl } from "../../../schemas/channels/channel-fields.ts";

/** Settings of a teams channel; browser-safe, so the dashboard validates with it too. */
export const teamsConfig = Type.Object(
  { url: HttpUrl("Microsoft Teams Workflows (Power Automate) webhook URL, or a legacy incoming-webhook URL") },
  { additionalProperties: false },
);
export type TeamsConfig = Static<typeof teamsConfig>;
