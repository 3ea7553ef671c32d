import { type Static, Type } from "@sinclair/typebox";
import { defineChannelSpec } from "../../../schemas/channels/channel-spec.ts";

/** Settings of a telegram channel; browser-safe, so the dashboard validates with it too. */
const telegramConfig = Type.Object(
  {
    bot_token: Type.String({ pattern: "^[0-9]+:[A-Za-z0-9_-]{20,}$", maxLength: 100, description: "Bot token from @BotFather, <id>:<secret>" }),
    chat_id: Type.Union([Type.Integer(), Type.String({ pattern: "^(-?[0-9]+|@[A-Za-z0-9_]{5,32})$" })], {
      description: "Numeric chat id (negative for groups) or @channelusername",
    }),
    message_thread_id: Type.Optional(Type.Integer({ minimum: 1, description: "Forum topic to post in" })),
  },
  { additionalProperties: false },
);
export type TelegramConfig = Static<typeof telegramConfig>;

/** The telegram channel type, as the registry (schemas/channel-types.ts) lists it. */
export const telegramSpec = defineChannelSpec({
  type: "telegram",
  label: "Telegram",
  help: "Sends a message from your bot to a chat, group or channel.",
  config: telegramConfig,
  secretFields: ["bot_token"],
  messageFormat: { title: "html", body: "html" },
});
