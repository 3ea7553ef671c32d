import { t } from "elysia";
import type { TLiteral, TUnion } from "@sinclair/typebox";
import { type ChannelType, channelTypes } from "../../../schemas/channel-types.ts";
import { Obj, PaginationQuery, Timestamp, DisplayName, Int } from "../../schemas/common.ts";

/** One literal per registered channel type (schemas/channel-types.ts); typed as one literal of the type union, which Elysia infers (an array type infers never). */
const ChannelTypeName = t.Union(channelTypes.map((c) => t.Literal(c))) as unknown as TUnion<[TLiteral<ChannelType>]>;
const Name = DisplayName(200);
const Config = t.Record(t.String(), t.Unknown(), {
  description: "The channel type's settings (see docs/channels.md); secret fields are returned masked (••••1234): send the masked value back to keep them",
});
const ConfigIn = t.Record(t.String(), t.Unknown(), { description: Config.description, "x-config-of": "channel" });

const Key = t.String({ pattern: "^[a-z0-9][a-z0-9._-]{0,56}$", description: "A stable key for monitoring as code (the watchpost CLI's config file): unique in the organisation; renaming keeps it" });
const KeyIn = t.Optional(t.Union([Key, t.Null()], { description: "A stable key for monitoring as code (the watchpost CLI's config file): lower-case letters, digits, '.', '_' and '-', at most 57; unique in the organisation (409 CONFLICT otherwise); null clears it" }));

export const ChannelCreateBody = Obj({ name: Name, type: ChannelTypeName, config: ConfigIn, enabled: t.Optional(t.Boolean()), key: KeyIn });
export const ChannelPatchBody = Obj({ name: t.Optional(Name), type: t.Optional(ChannelTypeName), config: t.Optional(ConfigIn), enabled: t.Optional(t.Boolean()), key: KeyIn });

export const ChannelView = t.Object({
  id: t.String(),
  name: t.String(),
  type: ChannelTypeName,
  config: Config,
  enabled: t.Boolean(),
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
