import { t } from "elysia";
import type { TLiteral, TUnion } from "@sinclair/typebox";
import { type ChannelType, channelTypes } from "../../../schemas/channel-types.ts";
import { type AlertEventKind, alertEventKinds } from "../../../schemas/channels/channel-spec.ts";
import { type MessageFormat, MessageTemplate, messageFormats } from "../../../schemas/channels/message-template.ts";
import { Obj, PaginationQuery, Timestamp, DisplayName, Int } from "../../schemas/common.ts";

/** One literal per registered channel type (schemas/channel-types.ts); typed as one literal of the type union, which Elysia infers (an array type infers never). */
const ChannelTypeName = t.Union(channelTypes.map((c) => t.Literal(c))) as unknown as TUnion<[TLiteral<ChannelType>]>;
const Name = DisplayName(200);
/** The channel type's settings, checked in code against the type's schema; the document types it per type (x-config-of). */
const Config = t.Record(t.String(), t.Unknown(), {
  description: "The channel type's settings (see docs/channels.md); secret fields are returned masked (••••1234): send the masked value back to keep them",
  "x-config-of": "channel",
});

const Key = t.String({ pattern: "^(?:[a-z0-9][a-z0-9_-]{0,23}/)?[a-z0-9][a-z0-9._-]{0,56}$", description: "A stable key for monitoring as code (the watchpost CLI's config file; <project>/<key> when the file has a project): unique in the organisation; renaming keeps it" });
const KeyIn = t.Optional(t.Union([Key, t.Null()], { description: "A stable key for monitoring as code (the watchpost CLI's config file): lower-case letters, digits, '.', '_' and '-', at most 57; unique in the organisation (409 CONFLICT otherwise); null clears it" }));

/** The same settings as answered: the document types them per type with secret fields masked (…ChannelConfigMasked). */
const ConfigOut = t.Record(t.String(), t.Unknown(), { description: Config.description, "x-config-of": "masked_channel" });

const TimeZone = t.String({ minLength: 1, maxLength: 64, description: "IANA time zone of the times in this channel's messages ({{time}}, {{started_at}}), e.g. Europe/Berlin; default UTC", examples: ["Europe/Berlin"] });
const TemplateIn = t.Union([MessageTemplate, t.Null()], { description: "The channel's own message template (Mustache; variables in docs/channels.md); null or {} returns to Watchpost's layout" });

export const ChannelCreateBody = Obj({ name: Name, type: ChannelTypeName, config: Config, enabled: t.Optional(t.Boolean()), template: t.Optional(TemplateIn), timezone: t.Optional(TimeZone), key: KeyIn });
export const ChannelPatchBody = Obj({
  name: t.Optional(Name),
  type: t.Optional(ChannelTypeName),
  config: t.Optional(Config),
  enabled: t.Optional(t.Boolean()),
  template: t.Optional(TemplateIn),
  timezone: t.Optional(TimeZone),
  key: KeyIn,
});

const Format = t.Union(messageFormats.map((f) => t.Literal(f)), { description: "How values were escaped: html, slack (mrkdwn), markdown, plain" }) as unknown as TUnion<[TLiteral<MessageFormat>]>;
export const MessagePreviewBody = Obj({
  type: ChannelTypeName,
  template: MessageTemplate,
  timezone: t.Optional(TimeZone),
  kind: t.Optional(t.Union(alertEventKinds.map((k) => t.Literal(k)), { description: "Which event the sample alert is; default alert" }) as unknown as TUnion<[TLiteral<AlertEventKind>]>),
});
export const MessagePreview = t.Object({
  title: t.Union([t.String(), t.Null()], { description: "Rendered title as the channel sends it; null: the template has none and Watchpost's title is sent" }),
  body: t.Union([t.String(), t.Null()], { description: "Rendered body as the channel sends it; null: the template has none and Watchpost's layout is sent" }),
  title_format: Format,
  body_format: Format,
});

export const ChannelView = t.Object({
  id: t.String(),
  name: t.String(),
  type: ChannelTypeName,
  config: ConfigOut,
  enabled: t.Boolean(),
  template: t.Union([MessageTemplate, t.Null()], { description: "The channel's own message template; null: Watchpost's layout" }),
  timezone: t.String({ description: "IANA time zone of the times in its messages" }),
  key: t.Union([Key, t.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const ChannelListQuery = Obj({ ...PaginationQuery });

export const TestSendResult = t.Object({
  ok: t.Boolean(),
  attempts: t.Array(
    t.Object({
      attempt: Int(),
      ok: t.Boolean(),
      at: Timestamp,
      durationMs: Int(),
      status: t.Optional(Int()),
      error: t.Optional(t.String()),
      permanent: t.Optional(t.Boolean()),
    }),
  ),
  error: t.Optional(t.String()),
  provider_id: t.Optional(t.String()),
});
