import { Type, type Static } from "@sinclair/typebox";
import { hostSchema } from "../../../schemas/checks/schema-parts.ts";
import { dataObject, flagField, intField, listField, msField, textField } from "../../../schemas/checks/data-fields.ts";
import { defineCheckSpec } from "../../../schemas/checks/check-spec.ts";

export const SSL_DEFAULTS = { port: 443, warn_days: 14 } as const;

const sslConfigSchema = Type.Object(
  {
    host: hostSchema,
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, default: SSL_DEFAULTS.port })),
    sni: Type.Optional(Type.String({ minLength: 1, maxLength: 253, pattern: "^[A-Za-z0-9._-]+$" })),
    warn_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: SSL_DEFAULTS.warn_days })),
  },
  { additionalProperties: false },
);
export type SslConfig = Static<typeof sslConfigSchema>;

const sslDataSchema = dataObject("SslData", {
  ssl_days_remaining: intField("Whole days until the leaf certificate's notAfter (negative once expired)"),
  valid_from: textField("Leaf certificate notBefore, ISO 8601"),
  valid_to: textField("Leaf certificate notAfter, ISO 8601"),
  issuer: textField("Issuer distinguished name of the leaf certificate, e.g. \"CN=R11, O=Let's Encrypt, C=US\""),
  subject: textField("Subject distinguished name of the leaf certificate"),
  sans: listField("Subject alternative names (DNS names and IP addresses) of the leaf certificate"),
  fingerprint_sha256: textField("SHA-256 fingerprint of the leaf certificate, colon-separated hex"),
  serial: textField("Serial number of the leaf certificate, hex"),
  chain_valid: flagField("Whether the chain verifies against the trusted roots (hostname aside)"),
  hostname_valid: flagField("Whether the certificate covers the SNI name (or the host)"),
  tls_ms: msField("TLS handshake time, ms"),
  ip: textField("Address connected to (after the private-address guard)"),
});

/** The ssl check type, as the registry (schemas/check-types.ts) lists it. */
export const sslSpec = defineCheckSpec({
  type: "ssl",
  label: "SSL certificate — valid and not about to expire",
  summary: "A TLS certificate is valid and not about to expire",
  runsOn: "worker",
  quota: "monitors",
  config: sslConfigSchema,
  data: sslDataSchema,
});
