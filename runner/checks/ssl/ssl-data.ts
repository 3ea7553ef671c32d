import { dataObject, flagField, intField, listField, msField, textField } from "../../../schemas/checks/data-fields.ts";

export const sslDataSchema = dataObject("SslData", {
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
