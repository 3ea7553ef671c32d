import { dataObject, textField } from "../../../schemas/checks/data-fields.ts";

/** Heartbeat results are recorded by the API (a ping: up) and the scheduler (a missed deadline: down). */
export const heartbeatDataSchema = dataObject("HeartbeatData", {
  last_ping_at: textField("Time of the latest ping, ISO 8601; null when none arrived yet"),
});
