import type { TObject } from "@sinclair/typebox";
import { discordSpec } from "../alerting/channels/discord/discord-schema.ts";
import { emailSpec } from "../alerting/channels/email/email-schema.ts";
import { opsgenieSpec } from "../alerting/channels/opsgenie/opsgenie-schema.ts";
import { pagerdutySpec } from "../alerting/channels/pagerduty/pagerduty-schema.ts";
import { slackSpec } from "../alerting/channels/slack/slack-schema.ts";
import { teamsSpec } from "../alerting/channels/teams/teams-schema.ts";
import { telegramSpec } from "../alerting/channels/telegram/telegram-schema.ts";
import { webhookSpec } from "../alerting/channels/webhook/webhook-schema.ts";
import type { ChannelSpec } from "./channels/channel-spec.ts";

/**
 * THE list of alert channel types: one line per type, in form and documentation order. The type
 * union, the config schemas, the API's type list, paging providers, the channel form's help, the
 * senders (alerting/channels/send-registry.gen.ts) and docs/channels.md's table derive from it.
 */
export const channelSpecs = {
  email: emailSpec,
  slack: slackSpec,
  discord: discordSpec,
  teams: teamsSpec,
  telegram: telegramSpec,
  webhook: webhookSpec,
  pagerduty: pagerdutySpec,
  opsgenie: opsgenieSpec,
} as const satisfies { [T in string]: ChannelSpec<T, TObject> };

type Specs = typeof channelSpecs;
export type ChannelType = keyof Specs;
export const channelTypes = Object.keys(channelSpecs) as ChannelType[];
export const isChannelType = (type: string): type is ChannelType => Object.hasOwn(channelSpecs, type);

/** The config schema of every channel type (browser-safe: no sender is loaded). */
export const channelConfigSchemas = Object.fromEntries(channelTypes.map((t) => [t, channelSpecs[t].config])) as { [K in ChannelType]: Specs[K]["config"] };

/** The spec of a channel type, widened for code that handles any type. */
export const channelSpecOf = (type: ChannelType): ChannelSpec<ChannelType, TObject> => channelSpecs[type] as ChannelSpec<ChannelType, TObject>;

/** Channel types whose incidents follow our alert state, so they also get `acknowledgement`. */
export const PAGING_TYPES: ReadonlySet<string> = new Set(channelTypes.filter((t) => channelSpecOf(t).paging === true));
