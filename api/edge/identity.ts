import type { Identity } from "../../domain/access/identity.ts";
import { hashToken } from "../../core/crypto/secrets.ts";
import type { Sql } from "../../db/client.ts";
import { notFound } from "../../core/errors.ts";
import type { IdentityCache } from "./identity-cache.ts";
import { findApiKeyIdentity, findSessionIdentity, touchApiKey, touchSession } from "../../db/queries/identity.ts";

export const SESSION_COOKIE = "wp_session";
export const CSRF_COOKIE = "wp_csrf";
const API_KEY_PATTERN = /^[a-z]{2,8}_live_[A-Za-z0-9_-]{20,}$/;
const TOUCH_EVERY_MS = 60_000;

function readCookie(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return null;
}

/**
 * Resolves the caller from `Authorization: Bearer <key>` or the session cookie.
 * Returns null for anonymous callers and for credentials that do not match anything live.
 */
export async function resolveIdentity(sql: Sql, request: Request, cache?: IdentityCache): Promise<Identity | null> {
  const auth = request.headers.get("authorization");
  if (auth) {
    const token = auth.startsWith("Bearer ") ? auth.slice(7).trim() : "";
    if (!API_KEY_PATTERN.test(token)) return null;
    const hash = hashToken(token);
    const cacheKey = `k:${hash.toString("base64")}`;
    const cached = cache?.get(cacheKey);
    if (cached) return cached;
    const mark = cache?.mark();
    const row = await findApiKeyIdentity(sql, hash);
    if (!row) return null;
    if (!row.last_used_at || Date.now() - row.last_used_at.getTime() > TOUCH_EVERY_MS) void touchApiKey(sql, row.key_id).catch(() => {});
    const identity: Identity = { kind: "api_key", keyId: row.key_id, userId: row.user_id, orgId: row.org_id, roleId: row.role_id, rolePermissions: row.permissions, scopes: row.scopes };
    cache?.set(cacheKey, identity, mark, row.expires_at);
    return identity;
  }
  const token = readCookie(request.headers.get("cookie"), SESSION_COOKIE);
  if (!token) return null;
  const orgHeader = request.headers.get("x-org-id");
  const hash = hashToken(token);
  const cacheKey = `s:${hash.toString("base64")}:${orgHeader ?? ""}`;
  const cached = cache?.get(cacheKey);
  if (cached) return cached;
  const mark = cache?.mark();
  const row = await findSessionIdentity(sql, hash, orgHeader);
  if (!row) return null;
  if (orgHeader && !row.org_id) throw notFound("Organisation");
  if (Date.now() - row.last_seen_at.getTime() > TOUCH_EVERY_MS) void touchSession(sql, row.session_id).catch(() => {});
  const identity: Identity = {
    kind: "session",
    userId: row.user_id,
    email: row.email,
    sessionId: row.session_id,
    csrfToken: row.csrf_token,
    // A second factor is proven at password sign-in only: a provider's MFA is not seen, so a single sign-on session
    // does not meet an organisation's 2FA policy.
    totpEnabled: row.totp_enabled && row.org_scope === null,
    orgId: row.org_id,
    roleId: row.role_id,
    rolePermissions: row.permissions ?? [],
    orgRequires2fa: row.require_2fa,
    orgScope: row.org_scope,
    ssoRequiredSlug: row.sso_required_slug,
  };
  cache?.set(cacheKey, identity, mark, row.expires_at);
  return identity;
}

