const MAX_LENGTH = 500;

const SOCKET_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset by the peer",
  EPIPE: "connection closed by the peer while sending",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "connection timed out",
  UND_ERR_SOCKET: "connection closed by the peer before a complete response",
  UND_ERR_HEADERS_OVERFLOW: "response headers too large",
  HPE_INVALID_CONSTANT: "malformed HTTP response",
};

const TLS_CODES = new Set([
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_GET_ISSUER_CERT",
  "CERT_REVOKED",
  "CERT_UNTRUSTED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** TLS handshake failures (Bun and Node name OpenSSL's reason as `ERR_SSL_<reason>`) said in words. */
const HANDSHAKE_REASONS: Readonly<Record<string, string>> = {
  WRONG_VERSION_NUMBER: "the server did not answer in TLS (plain text on this port?)",
  HTTP_REQUEST: "the server did not answer in TLS (plain text on this port?)",
  PACKET_LENGTH_TOO_LONG: "the server did not answer in TLS (plain text on this port?)",
  UNSUPPORTED_PROTOCOL: "no TLS version in common with the server",
  TLSV1_ALERT_PROTOCOL_VERSION: "no TLS version in common with the server",
  SSLV3_ALERT_HANDSHAKE_FAILURE: "the server refused the handshake (no cipher or setting in common)",
  NO_SHARED_CIPHER: "no cipher in common with the server",
  TLSV1_UNRECOGNIZED_NAME: "the server does not know the name sent in SNI",
  TLSV1_ALERT_INTERNAL_ERROR: "the server failed the handshake (internal error)",
};

/** One line saying what went wrong with a target, for CheckResult.error. */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return cut(String(err));
  const code = (err as { code?: string }).code;
  let text: string;
  if (code && SOCKET_CODES[code]) {
    const where = addressOf(err);
    text = `${SOCKET_CODES[code]}${where ? ` (${where})` : ""}`;
  } else if (code && TLS_CODES.has(code)) {
    text = `TLS certificate rejected: ${err.message} (${code})`;
  } else if (code?.startsWith("ERR_SSL_")) {
    const reason = code.slice("ERR_SSL_".length);
    const where = addressOf(err);
    text = `TLS handshake failed: ${HANDSHAKE_REASONS[reason] ?? reason.toLowerCase().replaceAll("_", " ")}${where ? ` (${where})` : ""}`;
  } else {
    text = err.message || err.name;
  }
  return cut(text);
}

function addressOf(err: Error): string | undefined {
  const e = err as { address?: string; port?: number };
  if (!e.address) return undefined;
  return e.port ? `${e.address.includes(":") ? `[${e.address}]` : e.address}:${e.port}` : e.address;
}

function cut(text: string): string {
  return text.length > MAX_LENGTH ? `${text.slice(0, MAX_LENGTH - 1)}…` : text;
}
