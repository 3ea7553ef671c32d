import { hashToken } from "../../../core/crypto/secrets.ts";
import { AppError, rateLimited } from "../../../core/errors.ts";
import { RUNNER_RATE_LIMIT_PER_MINUTE, RUNNER_TOKEN_PREFIX } from "../../../core/runners/protocol.ts";
import type { RunnerCaller } from "../../../core/runners/sessions.ts";
import { findRunnerByTokenHash } from "../../../db/queries/runners.ts";
import { type ApiDeps, requestMeta } from "../../context.ts";

const tokenInvalid = () => new AppError(401, "RUNNER_TOKEN_INVALID", "Unknown or revoked runner token; the runner must stop (create a new runner for a new token)");

/**
 * Runner traffic only over TLS: the request reached us as https, or a trusted proxy says it did.
 * Plain HTTP is refused even on loopback; the runner itself refuses http:// URLs.
 */
function overTls(request: Request, deps: ApiDeps): boolean {
  if (request.url.startsWith("https:")) return true;
  return deps.config.TRUST_PROXY && request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
}

/**
 * Resolves `Authorization: Bearer rt_…` to its live runner on every request (no cache, so a
 * revoke takes effect at once) and rate-limits per runner; failed attempts count against the IP.
 */
export async function authenticateRunner(deps: ApiDeps, request: Request, set: { headers: Record<string, string | number> }): Promise<RunnerCaller> {
  if (!overTls(request, deps)) throw new AppError(403, "RUNNER_HTTPS_REQUIRED", "Runner traffic must use HTTPS");
  const auth = request.headers.get("authorization") ?? "";
  const token = auth.startsWith("Bearer ") ? auth.slice(7).trim() : "";
  const row = token.startsWith(RUNNER_TOKEN_PREFIX) ? await findRunnerByTokenHash(deps.sql, hashToken(token)) : undefined;
  const ip = requestMeta.get(request)?.ip ?? "unknown";
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
