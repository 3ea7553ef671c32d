import type { ChannelType } from "../../../schemas/channel-types.ts";

/** A Kuma notification's settings (its `config` JSON). */
type KumaNotificationConfig = Record<string, unknown>;
type ChannelConversion = { type: ChannelType; config: Record<string, unknown> } | { refused: string };

const envRef = (key: string, field: string) => `\${KUMA_CHANNEL_${`${key}_${field}`.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}}`;
const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : null);
const webhookLike = (type: ChannelType, field: string) => (c: KumaNotificationConfig, key: string): ChannelConversion =>
  str(c[field]) ? { type, config: { url: envRef(key, "url") } } : { refused: `no ${field} in its settings` };

/**
 * One line per Kuma notification kind the importer turns into a Watchpost channel. Secrets (webhook URLs, tokens,
 * keys) become ${KUMA_CHANNEL_<KEY>_<FIELD>} references: copy each value from Kuma into that variable.
 */
export const KUMA_CHANNELS: Record<string, (c: KumaNotificationConfig, key: string) => ChannelConversion> = {
  smtp: (c) => {
    const to = String(c.smtpTo ?? "")
      .split(/[,;]/)
      .map((a) => a.trim())
      .filter(Boolean);
    return to.length ? { type: "email", config: { to: to.length === 1 ? to[0] : to.slice(0, 20) } } : { refused: "no recipient (smtpTo)" };
  },
  slack: webhookLike("slack", "slackwebhookURL"),
  discord: webhookLike("discord", "discordWebhookUrl"),
  teams: webhookLike("teams", "webhookUrl"),
  webhook: webhookLike("webhook", "webhookURL"),
  telegram: (c, key) =>
    str(c.telegramBotToken) && str(String(c.telegramChatID ?? ""))
      ? { type: "telegram", config: { bot_token: envRef(key, "bot_token"), chat_id: String(c.telegramChatID) } }
      : { refused: "no bot token or chat id" },
  PagerDuty: (c, key) => (str(c.pagerdutyIntegrationKey) ? { type: "pagerduty", config: { routing_key: envRef(key, "routing_key") } } : { refused: "no integration key" }),
  Opsgenie: (c, key) =>
    str(c.opsgenieApiKey)
      ? { type: "opsgenie", config: { api_key: envRef(key, "api_key"), ...(c.opsgenieRegion === "eu" ? { region: "eu" } : {}) } }
      : { refused: "no API key" },
};
