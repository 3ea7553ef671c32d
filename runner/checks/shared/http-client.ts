import type { GuardOptions } from "../../../core/net-guard/index.ts";
import type { CheckDataValue } from "../types.ts";
import { describeStepFailure, hostPort } from "./describe-error.ts";
import { exchangeOnSocket } from "./http-exchange.ts";
import { openConnection } from "./open-connection.ts";
import { ms } from "./timing.ts";

const USER_AGENT = "Watchpost/1.0 (uptime check; +https://watchpost.dev/bot)";
const DEFAULT_BODY_LIMIT = 1024 * 1024;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

type HttpMethod = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS";

/** Where the request writes what it has measured so far, so a timeout still reports it. */
type HttpMeasurements = Partial<
  Record<"dns_ms" | "connect_ms" | "tls_ms" | "ttfb_ms" | "ip" | "status_code" | "final_url" | "redirects" | "body_bytes", CheckDataValue>
>;

export interface HttpRequestOptions {
  url: string;
  method: HttpMethod;
  /** Header names in any case; sent as given plus a User-Agent when none is set. */
  headers: Record<string, string>;
  body?: string;
  followRedirects: boolean;
  maxRedirects: number;
  tlsVerify: boolean;
  /** Keep the body bytes (up to bodyLimit) in the response; otherwise only count them. */
  keepBody: boolean;
  bodyLimit?: number;
  extraCa?: string[];
  guard: GuardOptions & { signal: AbortSignal };
  measurements?: HttpMeasurements;
  /** A probe's context: each step names what it waits for, so a timeout says which (`no response to the GET request from …`). */
  progress?: { waitingFor?: string };
}

export interface HttpResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  /** Up to bodyLimit bytes, when keepBody was set. */
  body: Buffer | null;
  bodyBytes: number;
  finalUrl: string;
  redirects: number;
  /** Set when the last response was a redirect that max_redirects did not allow to follow. */
  redirectLimitHit: boolean;
}

/**
 * One HTTP request over fresh connections, following redirects by hand so that every hop goes
 * through the net guard. Phase times (dns, connect, tls, ttfb) are summed over the hops.
 */
export async function httpRequest(o: HttpRequestOptions): Promise<HttpResponse> {
  const m: HttpMeasurements = o.measurements ?? {};
  let url = parseHttpUrl(o.url);
  let method = o.method;
  let body = o.body;
  let headers = withDefaults(o.headers);
  for (let redirects = 0; ; redirects++) {
    m.final_url = url.href;
    m.redirects = redirects;
    const hop = await exchange(url, method, headers, body, o, m);
    const location = hop.headers.location;
    if (!o.followRedirects || !REDIRECT_STATUSES.has(hop.statusCode) || typeof location !== "string") {
      return { ...hop, finalUrl: url.href, redirects, redirectLimitHit: false };
    }
    if (redirects >= o.maxRedirects) return { ...hop, finalUrl: url.href, redirects, redirectLimitHit: true };
    const next = parseHttpUrl(location, url);
    if (hop.statusCode === 303 || ((hop.statusCode === 301 || hop.statusCode === 302) && method === "POST")) {
      method = method === "HEAD" ? "HEAD" : "GET";
      body = undefined;
      headers = without(headers, ["content-type", "content-length"]);
    }
    // Credentials set for one origin are not handed to another one a redirect points at.
    if (next.origin !== url.origin) headers = without(headers, CREDENTIAL_HEADERS);
    url = next;
  }
}

function parseHttpUrl(text: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw new Error(`invalid URL: ${text}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`unsupported URL scheme ${url.protocol} in ${text}`);
  return url;
}

type Hop = Pick<HttpResponse, "statusCode" | "headers" | "body" | "bodyBytes">;

async function exchange(
  url: URL,
  method: HttpMethod,
  headers: Record<string, string>,
  body: string | undefined,
  o: HttpRequestOptions,
  m: HttpMeasurements,
): Promise<Hop> {
  const https = url.protocol === "https:";
  const port = url.port ? Number(url.port) : https ? 443 : 80;
  const conn = await openConnection({
    host: url.hostname,
    port,
    guard: o.guard,
    tls: https ? { rejectUnauthorized: o.tlsVerify, extraCa: o.extraCa } : undefined,
    measurements: m,
    progress: o.progress,
  });

  const peer = { address: conn.address, port };
  let step = "";
  const awaiting = (next: string) => {
    step = next;
    if (o.progress) o.progress.waitingFor = `${next} from ${hostPort(peer.address, peer.port)}`;
  };
  awaiting(`response to the ${method} request`);
  const hop = await exchangeOnSocket(conn.socket, {
    host: url.host,
    path: url.pathname + url.search,
    method,
    headers,
    body,
    keepBody: o.keepBody,
    bodyLimit: o.bodyLimit ?? DEFAULT_BODY_LIMIT,
    signal: o.guard.signal,
    onHeaders(statusCode, ttfbMs) {
      m.ttfb_ms = add(m.ttfb_ms, ms(ttfbMs));
      m.status_code = statusCode;
      awaiting("end of the response body");
    },
  }).catch((err: unknown) => {
    throw o.guard.signal.aborted ? err : new Error(describeStepFailure(err, step, peer));
  });
  m.body_bytes = hop.bodyBytes;
  return hop;
}

function add(previous: CheckDataValue | undefined, value: number): number {
  return typeof previous === "number" ? ms(previous + value) : value;
}

function withDefaults(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  out["user-agent"] ??= USER_AGENT;
  return out;
}

function without(headers: Record<string, string>, names: string[]): Record<string, string> {
  const out = { ...headers };
  for (const name of names) delete out[name];
  return out;
}
