import { t } from "elysia";
import type { ChannelType } from "../../../alerting/channels/index.ts";
import { Obj, PaginationQuery, Timestamp, DisplayName, Int } from "../../schemas/common.ts";

export const ChannelTypeName = t.Union([
  t.Literal("email"),
  t.Literal("slack"),
  t.Literal("discord"),
  t.Literal("teams"),
  t.Literal("telegram"),
  t.Literal("webhook"),
  t.Literal("pagerduty"),
  t.Literal("opsgenie"),
]);
// A new channel type must be added above too.
const _allTypes: ChannelType extends typeof ChannelTypeName.static ? true : never = true;
const Name = DisplayName(200);
const Config = t.Record(t.String(), t.Unknown(), {
  description: "The channel type's settings (see docs/channels.md); secret fields are returned masked (••••1234): send the masked value back to keep them",
});
const ConfigIn = t.Record(t.String(), t.Unknown(), { description: Config.description, "x-config-of": "channel" });

export const ChannelCreateBody = Obj({ name: Name, type: ChannelTypeName, config: ConfigIn, enabled: t.Optional(t.Boolean()) });
export const ChannelPatchBody = Obj({ name: t.Optional(Name), type: t.Optional(ChannelTypeName), config: t.Optional(ConfigIn), enabled: t.Optional(t.Boolean()) });

export const ChannelView = t.Object({
  id: t.String(),
  name: t.String(),
  type: ChannelTypeName,
  config: Config,
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
