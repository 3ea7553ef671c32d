import { Agent, buildConnector, fetch as undiciFetch } from "undici/index.js";
import { type HostResolver, resolveAndCheck } from "../net-guard/index.ts";

export interface HttpRequestInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  redirect?: "manual" | "follow" | "error";
}

/** The part of a fetch Response channels read; both undici's and the global fetch satisfy it. */
export interface HttpResponse {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}

export type HttpFetch = (url: string, init: HttpRequestInit) => Promise<HttpResponse>;

export interface HttpFetchOptions {
  /** ALLOW_PRIVATE_IPS: let channels reach private, loopback and link-local addresses (never cloud metadata). */
  allowPrivateAddresses: boolean;
  /**
   * Connect over IPv6 too. Off by default: the guard connects to the first checked address, and
   * on a host without IPv6 routes an AAAA answer first would fail every delivery.
   */
  ipv6?: boolean;
  connectTimeoutMs?: number;
  /** Extra trusted CA certificates (PEM), for receivers behind an internal CA. */
  ca?: string[];
  /** Replaces the system resolver (tests). */
  resolver?: HostResolver;
}

/**
 * The production fetcher: undici whose every connection goes through the platform's net guard,
 * connecting to the address the guard checked (so DNS rebinding and redirects cannot reach the
 * internal network); TLS still verifies the certificate against the URL's host name.
 */
export function createHttpFetch({ allowPrivateAddresses, ipv6 = false, connectTimeoutMs = 10_000, ca, resolver }: HttpFetchOptions): HttpFetch {
  const connect = buildConnector({ timeout: connectTimeoutMs, ...(ca ? { ca } : {}) });
  const guarded: buildConnector.connector = (options, callback) => {
    resolveAndCheck(options.hostname, { allowPrivate: allowPrivateAddresses, ipv6, resolver }).then(
      ({ address }) => connect({ ...options, hostname: address }, callback),
      (err: Error) => callback(err, null),
    );
  };
  const dispatcher = new Agent({ connect: guarded });
  return (url: string, init: HttpRequestInit) => undiciFetch(url, { ...init, dispatcher });
}
