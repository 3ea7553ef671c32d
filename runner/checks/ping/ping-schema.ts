import { Type } from "@sinclair/typebox";
import { hostSchema } from "../../../schemas/checks/schema-parts.ts";
import { dataObject, intField, msField, nullable, textField } from "../../../schemas/checks/data-fields.ts";
import { defineCheckSpec } from "../../../schemas/checks/check-spec.ts";

export const PING_DEFAULTS = { count: 3 } as const;

const pingConfigSchema = Type.Object(
  {
    host: hostSchema,
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: PING_DEFAULTS.count })),
  },
  { additionalProperties: false },
);

const pingDataSchema = dataObject("PingData", {
  packets_sent: intField("ICMP echo requests sent"),
  packets_received: intField("Echo replies received"),
  packet_loss_pct: nullable(Type.Number({ minimum: 0, maximum: 100 }), "Lost requests in percent (0-100)"),
  rtt_min_ms: msField("Fastest round trip, ms; null without replies"),
  rtt_avg_ms: msField("Average round trip, ms; null without replies"),
  rtt_max_ms: msField("Slowest round trip, ms; null without replies"),
  ip: textField("Address pinged (after the private-address guard)"),
});

/** The ping check type, as the registry (schemas/check-types.ts) lists it. */
export const pingSpec = defineCheckSpec({
  type: "ping",
  label: "Ping — a host answers ICMP echo",
  summary: "A host answers ICMP echo requests",
  runsOn: "worker",
  quota: "monitors",
  config: pingConfigSchema,
  data: pingDataSchema,
});
