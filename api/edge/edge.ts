import type { Server } from "bun";
import { AppError, type ErrorBody, rateLimited, unauthenticated } from "../../core/errors.ts";
import type { ApiDeps, RequestMeta } from "../context.ts";
import { requestMeta } from "../context.ts";
import { mapError, tellIfDatabaseUnreachable } from "../middleware/errors.ts";
import { crossSiteRefused, isCrossSite, issuesSessionCookies } from "./cross-site.ts";
import type { RouteTable } from "../middleware/route-table.ts";
import { resolveIdentity } from "./identity.ts";
import { jsonBodyIssue } from "./json-body.ts";
import type { RateDecision } from "./rate-limiter.ts";

/** Paths of the self-hosted runner protocol; authenticated by runner token, not by API key or cookie. */
const RUNNER_PROTOCOL_PREFIX = "/api/v1/runner/";

/** Tighter per-IP limits on the credential endpoints, on top of the general one. */
function credentialLimit(method: string, path: string, deps: ApiDeps): { key: string; limit: number } | null {
  if (method !== "POST") return null;
  if (path === "/api/v1/auth/signin" || path === "/api/v1/auth/sso/start") return { key: "signin", limit: deps.config.RATE_LIMIT_SIGNIN_PER_IP };
  if (path === "/api/v1/auth/signup") return { key: "signup", limit: deps.config.RATE_LIMIT_SIGNUP_PER_IP };
  if (path === "/api/v1/setup") return { key: "setup", limit: deps.config.RATE_LIMIT_SIGNUP_PER_IP };
  if (path.startsWith("/api/v1/auth/password-reset")) return { key: "reset", limit: deps.config.RATE_LIMIT_RESET_PER_IP };
  return null;
}

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The token of a heartbeat ping (`/api/v1/heartbeat/:token[/start|/fail]`), or null. */
const HEARTBEAT_PING = /^\/api\/v1\/heartbeat\/([^/]+)(?:\/(?:start|fail))?$/;

/**
 * A heartbeat ping is the cron job's own credential (its token), sent by hosts that run many jobs: it has budgets of
 * its own instead of the anonymous per-IP one (10 a minute would refuse a host's eleventh job, a false "down"). The
 * sending host's ceiling is taken first and counts every ping it sends, so many tokens cannot multiply it.
 */
async function pingDecision(token: string, ip: string, deps: ApiDeps): Promise<RateDecision> {
  const host = await deps.limiter.take(`pings:${ip}`, deps.config.RATE_LIMIT_PINGS_PER_IP);
  if (!host.allowed) return host;
  return deps.limiter.take(`heartbeat:${token}`, deps.config.RATE_LIMIT_PER_HEARTBEAT);
}

const json = (status: number, body: ErrorBody, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

function rateHeaders(d: RateDecision): Record<string, string> {
  return { "x-ratelimit-limit": String(d.limit), "x-ratelimit-remaining": String(d.remaining), "x-ratelimit-reset": String(d.resetSeconds) };
}

function clientIp(request: Request, server: Server<unknown> | null, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded) return forwarded;
  }
  return server?.requestIP(request)?.address ?? "unknown";
}

/**
 * Runs before routing for every /api/v1 request: refuses oversized bodies, resolves the caller
 * once, applies the fixed-window rate limits and stamps the X-RateLimit-* headers on the answer.
 */
export function createEdge(deps: ApiDeps, handle: (request: Request) => Promise<Response> | Response, routes?: RouteTable) {
  const maxBytes = deps.config.MAX_BODY_BYTES;
  const tooLarge = (headers: Record<string, string> = {}) =>
    json(413, { error: `Request body exceeds ${maxBytes} bytes`, code: "PAYLOAD_TOO_LARGE", details: { maxBytes } }, headers);
  return async function fetch(request: Request, server: Server<unknown> | null): Promise<Response> {
    const pathStart = request.url.indexOf("/", request.url.indexOf("//") + 2);
    const queryStart = request.url.indexOf("?", pathStart);
    const path = request.url.slice(pathStart, queryStart === -1 ? undefined : queryStart);
    const declared = request.headers.get("content-length");
    // Public status pages and badges (outside /api/v1) need the client address for their IP allow-lists.
    if (!path.startsWith("/api/v1/")) {
      const meta: RequestMeta = { identity: null, ip: clientIp(request, server, deps.config.TRUST_PROXY) };
      requestMeta.set(request, meta);
      // Public pages take JSON too (status-page sign-in, subscribe): the same checks of the raw body.
      if (request.body && request.method !== "GET" && request.method !== "HEAD") return capBody(request, declared, {}, (capped) => (requestMeta.set(capped, meta), handle(capped)));
    }
    if (!path.startsWith("/api/v1/") || path === "/api/v1/openapi.json") return Number(declared ?? 0) > maxBytes ? tooLarge() : handle(request);
    // Provider webhooks carry their own signature and come from a few provider IPs: not limited like anonymous traffic.
    if (path.startsWith("/api/v1/billing/webhooks/")) return Number(declared ?? 0) > maxBytes ? tooLarge() : handle(request);

    const ip = clientIp(request, server, deps.config.TRUST_PROXY);
    const meta: RequestMeta = { identity: null, ip };
    // Runner-protocol routes read the rt_ token themselves and rate-limit per runner (api/routes/runner-protocol).
    if (path.startsWith(RUNNER_PROTOCOL_PREFIX)) return capBody(request, declared, {}, (capped) => (requestMeta.set(capped, meta), handle(capped)));
    let decision: RateDecision;
    // A credential that resolves to a refusal (X-Org-Id of an organisation the user is not in) is still rate limited, by IP.
    let refused: AppError | null = null;
    try {
      try {
        meta.identity = await resolveIdentity(deps.sql, request, deps.identityCache);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        refused = err;
      }
      const id = meta.identity;
      // A signed-in user's dashboard has a budget of its own, so an organisation's busy API keys never sign its people out.
      const ping = id ? null : HEARTBEAT_PING.exec(path)?.[1];
      decision = ping
        ? await pingDecision(ping, ip, deps)
        : !id
        ? await deps.limiter.take(`ip:${ip}`, deps.config.RATE_LIMIT_PER_IP)
        : id.kind === "session"
          ? await deps.limiter.take(`session:${id.userId}`, deps.config.RATE_LIMIT_PER_SESSION)
          : await deps.limiter.take(id.orgId ? `org:${id.orgId}` : `user:${id.userId}`, deps.config.RATE_LIMIT_PER_ORG);
      const credential = credentialLimit(request.method, path, deps);
      if (decision.allowed && credential) {
        const tight = await deps.limiter.take(`${credential.key}:${ip}`, credential.limit);
        if (!tight.allowed) decision = tight;
      }
    } catch (err) {
      tellIfDatabaseUnreachable(err, deps.databaseUnreachable);
      const { status, body } = mapError(err instanceof AppError ? "APP" : "UNKNOWN", err, deps.log);
      return json(status, body, status === 503 ? { "retry-after": "5" } : {});
    }
    const headers = rateHeaders(decision);
    if (!decision.allowed) {
      const err = rateLimited(decision.resetSeconds);
      return json(429, err.toBody(), { ...headers, "retry-after": String(decision.resetSeconds) });
    }
    if (refused) return json(refused.status, refused.toBody(), headers);
    // Login CSRF and cookie writes from another site's page: refused before the body is read.
    const cookieBound = issuesSessionCookies(request.method, path) || (meta.identity?.kind === "session" && WRITES.has(request.method));
    if (cookieBound && isCrossSite(request, deps.config)) return json(403, crossSiteRefused().toBody(), headers);
    // Authentication before validation: an anonymous request to a guarded route is 401 whatever its body, which stays unread.
    if (!meta.identity && routes?.needsCaller(request.method, path)) {
      void request.body?.cancel().catch(() => {});
      return json(401, unauthenticated().toBody(), headers);
    }
    // Every input is allow-listed: a query parameter on a route that declares none is refused, never ignored.
    const unknownQuery = queryStart !== -1 && queryStart < request.url.length - 1 && routes?.takesNoQuery(request.method, path);
    const notJson = request.body && declared !== "0" && routes?.takesJsonBody(request.method, path) ? notJsonIssue(request.headers.get("content-type")) : null;
    if (notJson) {
      void request.body?.cancel().catch(() => {});
      return json(400, { error: "Request body must be JSON: send Content-Type: application/json", code: "VALIDATION_ERROR", details: { issues: [notJson] } }, headers);
    }
    const response = await capBody(request, declared, headers, (capped) => {
      if (unknownQuery) {
        const names = [...new URL(request.url).searchParams.keys()];
        return json(400, { error: "Unknown query parameter", code: "VALIDATION_ERROR", details: { issues: names.map((n) => ({ path: `query.${n}`, message: "Unknown parameter" })) } }, headers);
      }
      requestMeta.set(capped, meta);
      return handle(capped);
    });
    // The NOTIFY that invalidates cached callers arrives asynchronously: after a write by a caller
    // (or to sessions and passwords) this process must not go on trusting what it cached before.
    if (WRITES.has(request.method) && response.status < 400 && (meta.identity || path.startsWith("/api/v1/auth/"))) deps.identityCache.clear();
    for (const [k, v] of Object.entries(headers)) response.headers.set(k, v);
    return response;
  };

  /**
   * Oversized bodies are refused unread: by Content-Length, or part-way through a chunked body.
   * A JSON body nested deeper than MAX_JSON_DEPTH, not valid UTF-8 or repeating a key in one object
   * is refused before anything parses or walks it.
   */
  async function capBody(request: Request, declared: string | null, headers: Record<string, string>, next: (request: Request) => Promise<Response> | Response): Promise<Response> {
    if (Number(declared ?? 0) > maxBytes) return tooLarge(headers);
    const isJson = request.headers.get("content-type")?.toLowerCase().includes("json") ?? false;
    if ((declared === null || isJson) && request.body) {
      const body = await readCapped(request.body, maxBytes);
      if (!body) return tooLarge(headers);
      if (isJson && jsonDepth(await body.text()) > MAX_JSON_DEPTH) {
        return json(400, { error: `Request body is nested deeper than ${MAX_JSON_DEPTH} levels`, code: "VALIDATION_ERROR", details: { issues: [{ path: "body", message: `Nested deeper than ${MAX_JSON_DEPTH} levels` }] } }, headers);
      }
      const issue = isJson ? jsonBodyIssue(new Uint8Array(await body.arrayBuffer())) : null;
      if (issue) return json(400, { error: issue.message === "Duplicate key" ? "Request body repeats a key" : "Request body is not valid UTF-8", code: "VALIDATION_ERROR", details: { issues: [issue] } }, headers);
      const copy = new Headers(request.headers);
      copy.delete("transfer-encoding");
      copy.set("content-length", String(body.size));
      request = new Request(request.url, { method: request.method, headers: copy, body, signal: request.signal });
    }
    return next(request);
  }
}

/**
 * A body for a JSON route sent as a form (`curl -d` without `-H`), text or XML: refused, never parsed as something
 * else. Elysia would read a form into fields (`{"name":"x"}` became a field of that name) and text into a string,
 * past the UTF-8, duplicate-key and depth checks only JSON gets.
 */
function notJsonIssue(contentType: string | null): { path: string; message: string } | null {
  const type = contentType?.split(";")[0]!.trim().toLowerCase() ?? "";
  if (type === "application/json") return null;
  return { path: "headers.content-type", message: `Expected application/json, got ${type || "no content type"}` };
}

/** No request body of the API nests anywhere near this deep; deeper ones only exhaust the stack of whatever walks them. */
const MAX_JSON_DEPTH = 64;

/** How deep arrays and objects nest in JSON text (strings skipped); stops counting past MAX_JSON_DEPTH. */
function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > max && (max = depth) > MAX_JSON_DEPTH) return max;
    } else if (c === 93 || c === 125) depth--;
  }
  return max;
}

/** The whole body, or null as soon as it grows past `maxBytes`. */
async function readCapped(stream: ReadableStream<Uint8Array>, maxBytes: number): Promise<Blob | null> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return new Blob(chunks as BlobPart[]);
}
