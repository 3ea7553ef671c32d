import { Elysia } from "elysia";
import type { Actor } from "../../domain/access/actor.ts";
import { can, type Identity } from "../../domain/access/identity.ts";
import type { Permission } from "../../schemas/access/permissions.ts";
import { permissionDenied, unauthenticated } from "../../core/errors.ts";
import { requestMeta } from "../context.ts";
import { REQUIRES_MARK } from "./route-table.ts";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** What a route asks of its caller: a permission in the active organisation, or just a signed-in user. */
export type Requirement = Permission | "user" | "member";

function caller(request: Request): { identity: Identity; ip: string } {
  const meta = requestMeta.get(request);
  if (!meta?.identity) throw unauthenticated();
  const { identity } = meta;
  if (identity.kind === "session" && !SAFE_METHODS.has(request.method) && request.headers.get("x-csrf-token") !== identity.csrfToken) {
    throw permissionDenied("Missing or invalid CSRF token (send the wp_csrf cookie value in X-CSRF-Token)", { reason: "csrf" });
  }
  return { identity, ip: meta.ip };
}

/** The caller as `need` asks for it, or the 401/403 that refuses them. */
function authorize(request: Request, need: Requirement): Actor {
  const { identity, ip } = caller(request);
  if (need === "user") {
    if (identity.kind !== "session") throw permissionDenied("This endpoint needs a signed-in user session");
    return { orgId: identity.orgId ?? "", userId: identity.userId, identity, ip };
  }
  if (!identity.orgId) throw permissionDenied("You are not a member of any organisation", { reason: "not_a_member" });
  if (identity.kind === "session" && identity.ssoRequiredSlug) {
    throw permissionDenied("This organisation requires single sign-on; use Sign in with SSO to act in it", { reason: "sso_required", org_slug: identity.ssoRequiredSlug });
  }
  if (identity.kind === "session" && identity.orgRequires2fa && !identity.totpEnabled) {
    throw permissionDenied("This organisation requires two-factor authentication; enable it under /user/2fa", { reason: "two_factor_required" });
  }
  if (need !== "member" && !can(identity, need)) throw permissionDenied(`Requires the ${need} permission`, { permission: need });
  return { orgId: identity.orgId, userId: identity.userId, identity, ip };
}

/**
 * `requires` on a route or group: resolves the caller, enforces CSRF for cookie writes,
 * the organisation's 2FA policy and the permission, and hands the handler an `actor`.
 * The check runs before validation (and, for a caller without credentials, the edge answers 401 before
 * the body is even read), so a caller learns 401 or 403, never how to shape a request.
 */
export const authPlugin = new Elysia({ name: "auth" }).macro({
  requires: (need: Requirement) => ({
    // Marked, so the edge's route table knows the route needs a caller and answers 401 before reading the body.
    transform: Object.assign(({ request }: { request: Request }) => void authorize(request, need), { [REQUIRES_MARK]: need }),
    resolve({ request }) {
      return { actor: authorize(request, need) satisfies Actor };
    },
  }),
});
