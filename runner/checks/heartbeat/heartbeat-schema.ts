import { Type, type Static } from "@sinclair/typebox";

export const HEARTBEAT_DEFAULTS = { grace_seconds: 300 } as const;

/** Heartbeat monitors are inbound (the target pings /heartbeat/:token); nothing runs on the engine. */
export const heartbeatConfigSchema = Type.Object(
  {
    period_seconds: Type.Integer({ minimum: 30, maximum: 31 * 86_400, description: "Expected time between two pings" }),
    grace_seconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 31 * 86_400, default: HEARTBEAT_DEFAULTS.grace_seconds, description: "Extra wait after a missed period before the monitor is down" }),
    ),
  },
  { additionalProperties: false },
);
export type HeartbeatConfig = Static<typeof heartbeatConfigSchema>;
