import { t } from "elysia";
import type { TLiteral, TUnion } from "@sinclair/typebox";
import { type ChannelType, channelTypes } from "../../../schemas/channel-types.ts";
import { Obj, PaginationQuery, Timestamp, DisplayName, Int } from "../../schemas/common.ts";

/** One literal per registered channel type (schemas/channel-types.ts); typed as one literal of the type union, which Elysia infers (an array type infers never). */
const ChannelTypeName = t.Union(channelTypes.map((c) => t.Literal(c))) as unknown as TUnion<[TLiteral<ChannelType>]>;
const Name = DisplayName(200);
/** The channel type's settings, checked in code against the type's schema; the document types it per type (x-config-of). */
const Config = t.Record(t.String(), t.Unknown(), {
  description: "The channel type's settings (see docs/channels.md); secret fields are returned masked (••••1234): send the masked value back to keep them",
  "x-config-of": "channel",
});

/** The same settings as answered: the document types them per type with secret fields masked (…ChannelConfigMasked). */
const ConfigOut = t.Record(t.String(), t.Unknown(), { description: Config.description, "x-config-of": "masked_channel" });

export const ChannelCreateBody = Obj({ name: Name, type: ChannelTypeName, config: Config, enabled: t.Optional(t.Boolean()) });
export const ChannelPatchBody = Obj({ name: t.Optional(Name), type: t.Optional(ChannelTypeName), config: t.Optional(Config), enabled: t.Optional(t.Boolean()) });

export const ChannelView = t.Object({
  id: t.String(),
  name: t.String(),
  type: ChannelTypeName,
  config: ConfigOut,
  enabled: t.Boolean(),
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
