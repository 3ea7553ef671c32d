import { Type } from "@sinclair/typebox";
import { dataObject, flagField, msField, nullable, textField } from "../../../schemas/checks/data-fields.ts";
import { defineCheckSpec } from "../../../schemas/checks/check-spec.ts";
import { type HeartbeatTiming, timingIssues } from "../../../schemas/heartbeat/schedule.ts";

const HEARTBEAT_DEFAULTS = { grace_seconds: 300 } as const;
/** How much of a ping's request body is kept (bytes). */
export const PING_BODY_LIMIT = 10_240;

/** Heartbeat monitors are inbound (the target pings /heartbeat/:token); nothing runs on the engine. */
const heartbeatConfigSchema = Type.Object(
  {
    period_seconds: Type.Optional(Type.Integer({ minimum: 30, maximum: 31 * 86_400, description: "Expected time between two pings; give this or schedule" })),
    schedule: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: "Cron expression of when the job runs, 5 fields (minute hour day month weekday) or 6 (seconds first), read in timezone; give this or period_seconds",
        examples: ["0 3 * * *"],
      }),
    ),
    timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "IANA time zone of schedule, e.g. Europe/Berlin; UTC when left out" })),
    grace_seconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 31 * 86_400, default: HEARTBEAT_DEFAULTS.grace_seconds, description: "Extra wait after a missed run before the monitor is down" }),
    ),
  },
  { additionalProperties: false, description: "Either period_seconds, or schedule with an optional timezone; grace_seconds with both" },
);

/** Heartbeat results are recorded by the API (a ping: up; a fail signal: down) and the scheduler (a missed deadline: down). */
export const heartbeatDataSchema = dataObject("HeartbeatData", {
  last_ping_at: textField("Time of the latest ping, ISO 8601; null when none arrived yet"),
  signal: nullable(Type.Union([Type.Literal("success"), Type.Literal("fail"), Type.Literal("missed")]), "What recorded the result: a success ping, a fail ping, or a missed deadline"),
  run_duration_ms: msField("Time from the /start signal to this ping (the job's run time, also duration_ms); null without a start"),
  body: textField(`The ping's request body, first ${PING_BODY_LIMIT} bytes as text; null when it had none`),
  body_truncated: flagField("Whether the body was longer than what is kept"),
  start_body: textField(`The /start signal's request body, first ${PING_BODY_LIMIT} bytes; null when none`),
  exit_status: nullable(Type.Integer({ minimum: 0, maximum: 255 }), "The job's exit status when it pinged /heartbeat/:token/:exit_status (0 success, else fail); null for a named signal or a missed deadline"),
});

/** The heartbeat check type, as the registry (schemas/check-types.ts) lists it. */
export const heartbeatSpec = defineCheckSpec({
  type: "heartbeat",
  label: "Heartbeat — your job pings us on schedule",
  summary: "Your job pings its heartbeat URL every period or on its cron schedule (inbound: nothing runs)",
  runsOn: "inbound",
  quota: "monitors",
  config: heartbeatConfigSchema,
  data: heartbeatDataSchema,
  validate: (config) => timingIssues(config as HeartbeatTiming).map((i) => ({ path: i.field, message: i.message })),
});
