import { Elysia } from "elysia";
import type { Actor } from "../../core/access/actor.ts";
import { can, type Identity } from "../../core/access/identity.ts";
import type { Permission } from "../../core/access/permissions.ts";
import { permissionDenied, unauthenticated } from "../../core/errors.ts";
import { requestMeta } from "../context.ts";

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

/**
 * `requires` on a route or group: resolves the caller, enforces CSRF for cookie writes,
 * the organisation's 2FA policy and the permission, and hands the handler an `actor`.
 */
export const authPlugin = new Elysia({ name: "auth" }).macro({
  requires: (need: Requirement) => ({
    resolve({ request }) {
      const { identity, ip } = caller(request);
      if (need === "user") {
        if (identity.kind !== "session") throw permissionDenied("This endpoint needs a signed-in user session");
        return { actor: { orgId: identity.orgId ?? "", userId: identity.userId, identity, ip } satisfies Actor };
      }
      if (!identity.orgId) throw permissionDenied("You are not a member of any organisation");
      if (identity.kind === "session" && identity.orgRequires2fa && !identity.totpEnabled) {
        throw permissionDenied("This organisation requires two-factor authentication; enable it under /user/2fa", { reason: "two_factor_required" });
      }
      if (need !== "member" && !can(identity, need)) throw permissionDenied(`Requires the ${need} permission`, { permission: need });
      return { actor: { orgId: identity.orgId, userId: identity.userId, identity, ip } satisfies Actor };
    },
  }),
});
