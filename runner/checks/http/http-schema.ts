import { Type, type Static } from "@sinclair/typebox";
import { httpUrlSchema } from "../../../schemas/checks/schema-parts.ts";
import { secretHeadersSchema } from "../../../schemas/checks/secret-headers.ts";
import { dataObject, intField, msField, nullable, textField } from "../../../schemas/checks/data-fields.ts";
import { assertionOutcomeSchema, assertionsField } from "../../../schemas/checks/assertion-schema.ts";
import { assertionIssues } from "../../../schemas/checks/compile-assertion.ts";
import { defineCheckSpec } from "../../../schemas/checks/check-spec.ts";

export const HTTP_DEFAULTS = {
  method: "GET",
  expected_status: ["200-399"],
  follow_redirects: true,
  max_redirects: 5,
  tls_verify: true,
} as const;

/** A status code, a class like "2xx", or an inclusive range like "200-299". */
export const statusMatcherSchema = Type.Union(
  [Type.Integer({ minimum: 100, maximum: 599 }), Type.String({ pattern: "^([1-5]xx|[1-5][0-9]{2}(-[1-5][0-9]{2})?)$" })],
  { description: 'A status code (200), a class ("2xx") or an inclusive range ("200-299")' },
);

const httpAuthSchema = Type.Union([
  Type.Object(
    {
      type: Type.Literal("basic"),
      username: Type.String({ maxLength: 256 }),
      password: Type.String({ maxLength: 1024, description: "Stored encrypted, shown as ••••••••; send •••••••• back to keep it" }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    { type: Type.Literal("bearer"), token: Type.String({ minLength: 1, maxLength: 4096, description: "Stored encrypted, shown as ••••••••; send •••••••• back to keep it" }) },
    { additionalProperties: false },
  ),
]);

/** The fields of an HTTP request check, shared by http and keyword. */
export const httpConfigFields = {
  url: httpUrlSchema,
  method: Type.Optional(
    Type.Union(
      [
        Type.Literal("GET"),
        Type.Literal("HEAD"),
        Type.Literal("POST"),
        Type.Literal("PUT"),
        Type.Literal("PATCH"),
        Type.Literal("DELETE"),
        Type.Literal("OPTIONS"),
      ],
      { default: HTTP_DEFAULTS.method },
    ),
  ),
  headers: Type.Optional(
    Type.Record(Type.String({ minLength: 1, maxLength: 256 }), Type.String({ maxLength: 8192 }), {
      description: "Request headers; the values of secret ones (see secret_headers) are stored encrypted and shown as ••••••••",
    }),
  ),
  secret_headers: secretHeadersSchema,
  body: Type.Optional(Type.String({ maxLength: 65536 })),
  expected_status: Type.Optional(
    Type.Array(statusMatcherSchema, {
      minItems: 1,
      maxItems: 50,
      default: HTTP_DEFAULTS.expected_status,
      description: "Status codes that count as up; not checked when assertions include a status_code assertion",
    }),
  ),
  follow_redirects: Type.Optional(Type.Boolean({ default: HTTP_DEFAULTS.follow_redirects })),
  max_redirects: Type.Optional(Type.Integer({ minimum: 0, maximum: 20, default: HTTP_DEFAULTS.max_redirects })),
  degraded_above_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 600_000 })),
  auth: Type.Optional(httpAuthSchema),
  tls_verify: Type.Optional(Type.Boolean({ default: HTTP_DEFAULTS.tls_verify })),
  assertions: assertionsField,
};

const httpConfigSchema = Type.Object(httpConfigFields, { additionalProperties: false });
export type HttpConfig = Static<typeof httpConfigSchema>;

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
  assertions: nullable(Type.Array(assertionOutcomeSchema), "Every assertion of the config in order with its outcome; null when the config has none"),
  assertions_failed: intField("Assertions that failed; null when the config has none"),
};

/**
 * Refusals the schema cannot express: a regular expression or JSONPath that does not compile; a body or
 * json assertion on a HEAD request, whose response has no body (it could only ever fail).
 */
export const validateHttpConfig = (config: { method?: HttpConfig["method"]; assertions?: HttpConfig["assertions"] }) => {
  const issues = assertionIssues(config.assertions);
  if (config.method !== "HEAD") return issues;
  (config.assertions ?? []).forEach((a, i) => {
    if (a.source === "body" || a.source === "json") issues.push({ path: `assertions.${i}.source`, message: "a HEAD response has no body to check: use GET (or another method)" });
  });
  return issues;
};

const httpDataSchema = dataObject("HttpData", httpDataFields);

/** The http check type, as the registry (schemas/check-types.ts) lists it. */
export const httpSpec = defineCheckSpec({
  type: "http",
  label: "HTTP(S) — a URL answers with an expected status",
  summary: "An HTTP(S) request gets an expected status (and fast enough)",
  runsOn: "worker",
  quota: "monitors",
  config: httpConfigSchema,
  data: httpDataSchema,
  reportsResponseTime: true,
  validate: validateHttpConfig,
});
