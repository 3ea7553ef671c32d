import { hashToken } from "../../../core/crypto/secrets.ts";
import { classifyAddress } from "../../../core/net-guard/address-policy.ts";
import { AppError, rateLimited } from "../../../core/errors.ts";
import { RUNNER_RATE_LIMIT_PER_MINUTE, RUNNER_TOKEN_PREFIX } from "../../../schemas/runner-protocol.ts";
import type { RunnerCaller } from "../../../domain/runners/sessions.ts";
import { findRunnerByTokenHash } from "../../../db/queries/runners.ts";
import { type ApiDeps, requestMeta } from "../../context.ts";

const tokenInvalid = () => new AppError(401, "RUNNER_TOKEN_INVALID", "Unknown or revoked runner token; the runner must stop (create a new runner for a new token)");

const isLoopback = (address: string): boolean => {
  if (address === "localhost") return true;
  try {
    return classifyAddress(address).range === "loopback";
  } catch {
    return false;
  }
};

/**
 * Runner traffic only over TLS: the request reached us as https, or a trusted proxy says it did.
 * The one plain-HTTP exception is the local development listener: the API bound to a loopback
 * address (HOST=127.0.0.1, ::1 or localhost) and the request from loopback too, with no proxy
 * trusted to speak for others. (The runner itself still refuses http:// URLs; this serves protocol
 * tools and a TLS-terminating proxy on the same host.)
 */
export function runnerTransportAllowed(input: { url: string; forwardedProto: string | null; peer: string; host: string; trustProxy: boolean }): boolean {
  if (input.url.startsWith("https:")) return true;
  if (input.trustProxy) return input.forwardedProto?.split(",")[0]?.trim() === "https";
  return isLoopback(input.host) && isLoopback(input.peer);
}

/**
 * Resolves `Authorization: Bearer rt_…` to its live runner on every request (no cache, so a
 * revoke takes effect at once) and rate-limits per runner; failed attempts count against the IP.
 */
export async function authenticateRunner(deps: ApiDeps, request: Request, set: { headers: Record<string, string | number> }): Promise<RunnerCaller> {
  const ip = requestMeta.get(request)?.ip ?? "unknown";
  const transport = { url: request.url, forwardedProto: request.headers.get("x-forwarded-proto"), peer: ip, host: deps.config.HOST, trustProxy: deps.config.TRUST_PROXY };
  if (!runnerTransportAllowed(transport)) {
    throw new AppError(403, "RUNNER_HTTPS_REQUIRED", "Runner traffic must use HTTPS (plain HTTP only on a loopback-bound development listener)");
  }
  const auth = request.headers.get("authorization") ?? "";
  const token = auth.startsWith("Bearer ") ? auth.slice(7).trim() : "";
  const row = token.startsWith(RUNNER_TOKEN_PREFIX) ? await findRunnerByTokenHash(deps.sql, hashToken(token)) : undefined;
  const decision = row
    ? await deps.limiter.take(`runner:${row.id}`, RUNNER_RATE_LIMIT_PER_MINUTE)
    : await deps.limiter.take(`ip:${ip}`, deps.config.RATE_LIMIT_PER_IP);
  set.headers["x-ratelimit-limit"] = String(decision.limit);
  set.headers["x-ratelimit-remaining"] = String(decision.remaining);
  set.headers["x-ratelimit-reset"] = String(decision.resetSeconds);
  if (!decision.allowed) throw rateLimited(decision.resetSeconds);
  if (!row) throw tokenInvalid();
  return { id: row.id, orgId: row.org_id, tokenHash: hashToken(token), suspended: row.suspended };
}
