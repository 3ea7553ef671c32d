import { dataObject, msField, textField } from "../../../schemas/checks/data-fields.ts";

export const tcpDataSchema = dataObject("TcpData", {
  dns_ms: msField("Time to resolve and check the host, ms (0 for an IP literal)"),
  connect_ms: msField("TCP connect time (SYN to established), ms"),
  ip: textField("Address connected to (after the private-address guard)"),
});
