import { Type } from "@sinclair/typebox";
import { hostSchema, portSchema } from "../../../schemas/checks/schema-parts.ts";
import { dataObject, msField, textField } from "../../../schemas/checks/data-fields.ts";
import { defineCheckSpec } from "../../../schemas/checks/check-spec.ts";

const tcpConfigSchema = Type.Object({ host: hostSchema, port: portSchema }, { additionalProperties: false });

const tcpDataSchema = dataObject("TcpData", {
  dns_ms: msField("Time to resolve and check the host, ms (0 for an IP literal)"),
  connect_ms: msField("TCP connect time (SYN to established), ms"),
  ip: textField("Address connected to (after the private-address guard)"),
});

/** The tcp check type, as the registry (schemas/check-types.ts) lists it. */
export const tcpSpec = defineCheckSpec({
  type: "tcp",
  label: "TCP port — accepts connections",
  summary: "A TCP port accepts connections",
  runsOn: "worker",
  quota: "monitors",
  config: tcpConfigSchema,
  data: tcpDataSchema,
});
