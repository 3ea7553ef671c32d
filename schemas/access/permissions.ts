/**
 * The spec's API-key scopes; `org:admin` grants every one of them. `api_keys:write` is ours: it
 * manages keys (create, list, revoke), so a read-only key or a viewer cannot (docs/api-conventions.md).
 */
export const SCOPES = [
  "org:admin",
  "monitors:read",
  "monitors:write",
  "alerts:read",
  "alerts:write",
  "status_pages:read",
  "status_pages:write",
  "runners:read",
  "runners:write",
  "incidents:read",
  "incidents:write",
  "api_keys:write",
] as const;

/** Role permissions: every scope plus two that only roles carry (never keys). */
export const PERMISSIONS = [...SCOPES, "billing:manage", "org:owner"] as const;
export type Permission = (typeof PERMISSIONS)[number];

const IMPLIED_BY_ADMIN = new Set<string>(SCOPES);

/** Whether a grant list (role permissions or key scopes) covers one permission. */
export function grants(list: readonly string[], needed: Permission): boolean {
  if (list.includes(needed)) return true;
  return list.includes("org:admin") && IMPLIED_BY_ADMIN.has(needed);
}

/** A key never grants more than its creator's role: both must cover the permission. */
export function keyGrants(keyScopes: readonly string[], creatorRole: readonly string[], needed: Permission): boolean {
  return grants(keyScopes, needed) && grants(creatorRole, needed);
}

