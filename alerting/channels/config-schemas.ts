import { discordConfig } from "./discord/discord-schema.ts";
import { emailConfig } from "./email/email-schema.ts";
import { opsgenieConfig } from "./opsgenie/opsgenie-schema.ts";
import { pagerdutyConfig } from "./pagerduty/pagerduty-schema.ts";
import { slackConfig } from "./slack/slack-schema.ts";
import { teamsConfig } from "./teams/teams-schema.ts";
import { telegramConfig } from "./telegram/telegram-schema.ts";
import { webhookConfig } from "./webhook/webhook-schema.ts";

/**
 * The config schema of every channel type, without the channels' senders: importing this
 * loads no HTTP or SMTP client, so the dashboard validates channel settings with it too.
 * The registry test checks it matches each channel's own `configSchema`.
 */
export const channelConfigSchemas = {
  email: emailConfig,
  slack: slackConfig,
  discord: discordConfig,
  teams: teamsConfig,
  telegram: telegramConfig,
  webhook: webhookConfig,
  pagerduty: pagerdutyConfig,
  opsgenie: opsgenieConfig,
};
