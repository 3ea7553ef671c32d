import { Type } from "@sinclair/typebox";
import { intField, listField, msField, nullable, textField } from "./data-fields.ts";

/** Fields every browser check (Lite and Flow) reports. */
export const browserDataFields = {
  engine: textField("Browser engine that ran the check: chromium, firefox or webkit"),
  final_url: textField("URL of the page when the check ended (after redirects and navigation)"),
  http_status: intField("HTTP status of the last main-document response; null when the page never answered"),
  title: textField("Title of the page when the check ended"),
  response_time: msField("Same as duration_ms: the whole check in the browser, ms"),
  console_errors: intField("console.error messages and uncaught exceptions on the page"),
  console_error_messages: listField("The first ten console errors"),
  failed_requests: intField("Subresource requests that failed (network error, or HTTP 4xx/5xx); the guard's refusals are not counted"),
  failed_request_details: listField("The first ten failed requests: method, URL and reason"),
  blocked_requests: listField("Requests the private-address guard refused (target: reason); the page never reached them"),
  request_count: intField("Requests the page made (documents, subresources, redirect hops)"),
  transfer_bytes: intField("Bytes received by the page: response headers and encoded bodies of every finished request"),
  screenshots: listField("Names of the screenshots stored with this result (GET /monitors/:id/checks/:checkId/screenshot?name=)"),
  browser_memory_mb: nullable(Type.Number({ minimum: 0 }), "Peak memory of the browser during the check (all its processes, private resident memory), MB"),
};
