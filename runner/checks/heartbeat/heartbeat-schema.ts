import { Type } from "@sinclair/typebox";
import { dataObject, textField } from "../../../schemas/checks/data-fields.ts";
import { defineCheckSpec } from "../../../schemas/checks/check-spec.ts";

const HEARTBEAT_DEFAULTS = { grace_seconds: 300 } as const;

/** Heartbeat monitors are inbound (the target pings /heartbeat/:token); nothing runs on the engine. */
const heartbeatConfigSchema = Type.Object(
  {
    period_seconds: Type.Integer({ minimum: 30, maximum: 31 * 86_400, description: "Expected time between two pings" }),
    grace_seconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 31 * 86_400, default: HEARTBEAT_DEFAULTS.grace_seconds, description: "Extra wait after a missed period before the monitor is down" }),
    ),
  },
  { additionalProperties: false },
);

/** Heartbeat results are recorded by the API (a ping: up) and the scheduler (a missed deadline: down). */
export const heartbeatDataSchema = dataObject("HeartbeatData", {
  last_ping_at: textField("Time of the latest ping, ISO 8601; null when none arrived yet"),
});

/** The heartbeat check type, as the registry (schemas/check-types.ts) lists it. */
export const heartbeatSpec = defineCheckSpec({
  type: "heartbeat",
  label: "Heartbeat — your job pings us on schedule",
  summary: "Your job pings its heartbeat URL within the period (inbound: nothing runs)",
  runsOn: "inbound",
  quota: "monitors",
  config: heartbeatConfigSchema,
  data: heartbeatDataSchema,
});
