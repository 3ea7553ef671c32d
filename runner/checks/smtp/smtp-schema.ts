import { Type, type Static } from "@sinclair/typebox";
import { dataObject, intField, msField, textField } from "../../../schemas/checks/data-fields.ts";
import { hostSchema } from "../../../schemas/checks/schema-parts.ts";
import { defineCheckSpec } from "../../../schemas/checks/check-spec.ts";

export const SMTP_DEFAULTS = { port: 587, starttls: "auto", tls_verify: true, ehlo_name: "watchpost.invalid" } as const;

const smtpConfigSchema = Type.Object(
  {
    host: hostSchema,
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, default: SMTP_DEFAULTS.port, description: "SMTP port; 587 (submission) by default, 25 for MX servers" })),
    starttls: Type.Optional(
      Type.Union([Type.Literal("auto"), Type.Literal("required"), Type.Literal("off")], {
        default: SMTP_DEFAULTS.starttls,
        description: "auto: upgrade when the server offers STARTTLS; required: down when it does not; off: stay in plain text",
      }),
    ),
    tls_verify: Type.Optional(Type.Boolean({ default: SMTP_DEFAULTS.tls_verify, description: "Down when the STARTTLS certificate is not trusted or does not cover the host" })),
    ehlo_name: Type.Optional(Type.String({ minLength: 1, maxLength: 253, pattern: "^[A-Za-z0-9.-]+$", default: SMTP_DEFAULTS.ehlo_name, description: "The name we greet the server with (EHLO)" })),
    cert_expiry_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, description: "Degraded when the STARTTLS certificate expires within this many days" })),
    degraded_above_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 600_000, description: "Degraded when the dialogue takes longer than this, ms" })),
  },
  { additionalProperties: false },
);
export type SmtpConfig = Static<typeof smtpConfigSchema>;

const smtpDataSchema = dataObject("SmtpData", {
  dns_ms: msField("Time to resolve and check the host, ms (0 for an IP literal)"),
  connect_ms: msField("TCP connect time, ms"),
  banner_ms: msField("Time from connect to the server's 220 greeting, ms"),
  ehlo_ms: msField("Time for the EHLO answer, ms"),
  starttls_ms: msField("Time for STARTTLS and the TLS handshake, ms; null when no upgrade happened"),
  tls_version: textField("TLS protocol after STARTTLS, e.g. TLSv1.3; null without TLS"),
  cert_expires_at: textField("Expiry of the STARTTLS certificate, ISO 8601; null without TLS"),
  cert_days_left: intField("Whole days until the STARTTLS certificate expires; null without TLS"),
  banner: textField("The server's greeting line (first 200 characters)"),
  ip: textField("Address connected to (after the private-address guard)"),
});

/** The smtp check type, as the registry (schemas/check-types.ts) lists it. */
export const smtpSpec = defineCheckSpec({
  type: "smtp",
  label: "SMTP — a mail server greets, answers EHLO and (optionally) STARTTLS",
  summary: "A mail server greets, answers EHLO and upgrades with STARTTLS to a valid certificate",
  runsOn: "worker",
  quota: "monitors",
  config: smtpConfigSchema,
  data: smtpDataSchema,
});
