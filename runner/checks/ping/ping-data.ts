import { Type } from "@sinclair/typebox";
import { dataObject, intField, msField, nullable, textField } from "../../../schemas/checks/data-fields.ts";

export const pingDataSchema = dataObject("PingData", {
  packets_sent: intField("ICMP echo requests sent"),
  packets_received: intField("Echo replies received"),
  packet_loss_pct: nullable(Type.Number({ minimum: 0, maximum: 100 }), "Lost requests in percent (0-100)"),
  rtt_min_ms: msField("Fastest round trip, ms; null without replies"),
  rtt_avg_ms: msField("Average round trip, ms; null without replies"),
  rtt_max_ms: msField("Slowest round trip, ms; null without replies"),
  ip: textField("Address pinged (after the private-address guard)"),
});
