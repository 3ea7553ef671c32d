const MAX_LENGTH = 500;

const SOCKET_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset by the peer",
  EPIPE: "connection closed by the peer while sending",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "connection timed out",
  UND_ERR_SOCKET: "connection closed by the server",
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
const NOT_TLS = "the server did not answer in TLS";
const HANDSHAKE_REASONS: Readonly<Record<string, string>> = {
  WRONG_VERSION_NUMBER: NOT_TLS,
  HTTP_REQUEST: NOT_TLS,
  PACKET_LENGTH_TOO_LONG: NOT_TLS,
  UNSUPPORTED_PROTOCOL: "no TLS version in common with the server",
  TLSV1_ALERT_PROTOCOL_VERSION: "no TLS version in common with the server",
  SSLV3_ALERT_HANDSHAKE_FAILURE: "the server refused the handshake (no cipher or setting in common)",
  NO_SHARED_CIPHER: "no cipher in common with the server",
  TLSV1_UNRECOGNIZED_NAME: "the server does not know the name sent in SNI",
  TLSV1_ALERT_INTERNAL_ERROR: "the server failed the handshake (internal error)",
};

/** The server closed the connection (FIN) while an answer was awaited. */
export class ServerClosedError extends Error {
  constructor() {
    super("connection closed by the server");
  }
}

export interface Peer {
  address: string;
  port: number;
}

export interface ErrorPlace {
  /** The address the socket was connected to, for errors that do not carry one (those of an established socket). */
  peer?: Peer;
  /** The TLS handshake followed this plain-text command (STARTTLS): named, and plain text is no surprise there. */
  upgradedBy?: string;
}

/** One line saying what went wrong with a target, for CheckResult.error. */
export function describeError(err: unknown, place: ErrorPlace = {}): string {
  if (!(err instanceof Error)) return cut(String(err));
  const code = (err as { code?: string }).code;
  const where = addressOf(err) ?? (place.peer && hostPort(place.peer.address, place.peer.port));
  const suffix = where ? ` (${where})` : "";
  let text: string;
  if (err instanceof ServerClosedError) {
    text = `${err.message}${suffix}`;
  } else if (code && SOCKET_CODES[code]) {
    text = `${SOCKET_CODES[code]}${suffix}`;
  } else if (code && TLS_CODES.has(code)) {
    text = `TLS certificate rejected: ${err.message} (${code})`;
  } else if (code?.startsWith("ERR_SSL_")) {
    const reason = code.slice("ERR_SSL_".length);
    const words = HANDSHAKE_REASONS[reason] ?? reason.toLowerCase().replaceAll("_", " ");
    text = place.upgradedBy
      ? `TLS handshake after ${place.upgradedBy} failed: ${words}${suffix}`
      : `TLS handshake failed: ${words}${words === NOT_TLS ? " (plain text on this port?)" : ""}${suffix}`;
  } else {
    text = err.message || err.name;
  }
  return cut(text);
}

/** A failure of the connection itself (closed, reset, unreachable...), not of what was said on it. */
export function isConnectionFailure(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return err instanceof ServerClosedError || (typeof code === "string" && code in SOCKET_CODES);
}

/**
 * What went wrong while waiting for one step (`TLS handshake`, `reply to EHLO`, `response to the GET request`),
 * in words: what happened, where, and the step, which is named as its timeout names it. A failed handshake
 * after a plain-text command (STARTTLS) names its step itself.
 */
export function describeStepFailure(err: unknown, step: string, peer: Peer, upgradedBy?: string): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (upgradedBy && typeof code === "string" && code.startsWith("ERR_SSL_")) return describeError(err, { peer, upgradedBy });
  return `${describeError(err, { peer })} while waiting for the ${step}`;
}

function addressOf(err: Error): string | undefined {
  const e = err as { address?: string; port?: number };
  return e.address ? hostPort(e.address, e.port) : undefined;
}

/** `address:port`, an IPv6 address in brackets; the address alone without a port. */
export function hostPort(address: string, port: number | undefined): string {
  return port ? `${address.includes(":") ? `[${address}]` : address}:${port}` : address;
}

function cut(text: string): string {
  return text.length > MAX_LENGTH ? `${text.slice(0, MAX_LENGTH - 1)}…` : text;
}
