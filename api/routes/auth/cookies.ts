import type { ApiConfig } from "../../config.ts";
import { CSRF_COOKIE, SESSION_COOKIE } from "../../edge/identity.ts";

/** Secure when the request came over TLS (directly, or via a trusted proxy) or the public URL is https. */
export function isSecure(request: Request, config: ApiConfig): boolean {
  if (request.url.startsWith("https:")) return true;
  if (config.TRUST_PROXY && request.headers.get("x-forwarded-proto") === "https") return true;
  return config.PUBLIC_BASE_URL?.startsWith("https:") ?? false;
}

export function sessionCookies(token: string, csrf: string, expires: Date, secure: boolean): string[] {
  const attrs = `Path=/; SameSite=Lax; Expires=${expires.toUTCString()}${secure ? "; Secure" : ""}`;
  return [`${SESSION_COOKIE}=${token}; HttpOnly; ${attrs}`, `${CSRF_COOKIE}=${csrf}; ${attrs}`];
}

export function clearedCookies(secure: boolean): string[] {
  const attrs = `Path=/; SameSite=Lax; Max-Age=0${secure ? "; Secure" : ""}`;
  return [`${SESSION_COOKIE}=; HttpOnly; ${attrs}`, `${CSRF_COOKIE}=; ${attrs}`];
}
