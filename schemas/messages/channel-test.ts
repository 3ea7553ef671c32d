import { type Static, Type } from "@sinclair/typebox";

/** The API asks the alerting role to send a channel's test notification; one alerting process answers. */
export const CHANNEL_TEST_SUBJECT = "rpc.alerting.channel-test" as const;
export const CHANNEL_TEST_QUEUE = "alerting";

const ChannelTestRequestSchema = Type.Object({ orgId: Type.String(), channelId: Type.String(), orgName: Type.String() });
export type ChannelTestRequest = Static<typeof ChannelTestRequestSchema>;

const TestSendAttemptSchema = Type.Object({
  /** 1-based. */
  attempt: Type.Integer(),
  ok: Type.Boolean(),
  at: Type.String(),
  durationMs: Type.Number(),
  status: Type.Optional(Type.Integer()),
  error: Type.Optional(Type.String()),
  permanent: Type.Optional(Type.Boolean()),
});

/** What a test send answers: every attempt, the last error, the provider's id of the notification. */
const TestSendResultSchema = Type.Object({
  ok: Type.Boolean(),
  attempts: Type.Array(TestSendAttemptSchema),
  error: Type.Optional(Type.String()),
  provider_id: Type.Optional(Type.String()),
});
export type TestSendResult = Static<typeof TestSendResultSchema>;
