import { dataObject, intField, msField, textField } from "../../../schemas/checks/data-fields.ts";

/** Fields shared by http and keyword results. */
export const httpDataFields = {
  status_code: intField("HTTP status code of the last response (after redirects were followed)"),
  dns_ms: msField("Time to resolve and check the host, ms (0 for an IP literal); summed over redirect hops"),
  connect_ms: msField("TCP connect time, ms; summed over redirect hops"),
  tls_ms: msField("TLS handshake time, ms; null for plain http; summed over redirect hops"),
  ttfb_ms: msField("From sending the request to receiving the response headers, ms; summed over redirect hops"),
  response_time: msField("Same as duration_ms: the whole check including reading the body, ms"),
  body_bytes: intField("Bytes of body read from the last response (at most 1 MiB are read)"),
  final_url: textField("URL of the last request made (differs from url after redirects)"),
  redirects: intField("Number of redirects followed"),
  ip: textField("Address connected to for the last request (after the private-address guard)"),
};

export const httpDataSchema = dataObject("HttpData", httpDataFields);
