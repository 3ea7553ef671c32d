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
