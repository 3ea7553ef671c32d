import type { ApiConfig } from "../config.ts";
import { permissionDenied } from "../../core/errors.ts";

/**
 * Whether a browser says this request comes from another site's page: `Sec-Fetch-Site` other than
 * same-origin/none, or an `Origin` that is not the API's own. The dashboard is served by the API
 * itself, so its requests are same-origin; a client that sends neither header is not a browser.
 */
export function isCrossSite(request: Request, config: Pick<ApiConfig, "PUBLIC_BASE_URL" | "TRUST_PROXY">): boolean {
  const site = request.headers.get("sec-fetch-site")?.toLowerCase();
  if (site && site !== "same-origin" && site !== "none") return true;
  const origin = request.headers.get("origin")?.toLowerCase();
  if (origin === undefined) return false;
  return !ownOrigins(request, config).has(origin);
}

function ownOrigins(request: Request, config: Pick<ApiConfig, "PUBLIC_BASE_URL" | "TRUST_PROXY">): Set<string> {
  const url = new URL(request.url);
  const own = new Set([url.origin.toLowerCase()]);
  if (config.PUBLIC_BASE_URL) own.add(new URL(config.PUBLIC_BASE_URL).origin.toLowerCase());
  if (config.TRUST_PROXY) {
    const host = request.headers.get("x-forwarded-host")?.split(",")[0]?.trim() ?? url.host;
    const proto = request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() ?? url.protocol.slice(0, -1);
    own.add(`${proto}://${host}`.toLowerCase());
  }
  return own;
}

export const crossSiteRefused = () =>
  permissionDenied("Refused: this request comes from another site's page (Origin / Sec-Fetch-Site)", { reason: "cross_site" });

/**
 * Requests that set session cookies: a cross-site one would sign the browser into someone else's account (login CSRF).
 * SSO start sets the flow cookie its callback needs; the callback itself comes from the provider's page and is bound
 * to that cookie instead.
 */
export function issuesSessionCookies(method: string, path: string): boolean {
  return method === "POST" && (path === "/api/v1/auth/signin" || path === "/api/v1/auth/signup" || path === "/api/v1/setup" || path === "/api/v1/auth/sso/start");
}
