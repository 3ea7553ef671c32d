import ipaddr from "ipaddr.js";
import type { SecretBox } from "../../core/crypto/secrets.ts";
import { hashToken } from "../../core/crypto/secrets.ts";
import type { Sql } from "../../db/client.ts";
import type { StatusPageRow } from "../../db/queries/status-pages.ts";
import { findSessionIdentity } from "../../db/queries/identity.ts";
import { PAGE_COOKIE_PREFIX, verifyPageCookie } from "./tokens.ts";

/** What the caller may see of a page: everything, a password form, or nothing (404). */
export type AccessDecision = "allow" | "password" | "deny";

export interface AccessRequest {
  ip: string;
  cookies: (name: string) => string | null;
}

export function parseCidr(text: string): [ipaddr.IPv4 | ipaddr.IPv6, number] | null {
  try {
    return text.includes("/") ? ipaddr.parseCIDR(text) : (() => {
      const a = ipaddr.parse(text);
      return [a, a.kind() === "ipv4" ? 32 : 128] as [ipaddr.IPv4 | ipaddr.IPv6, number];
    })();
  } catch {
    return null;
  }
}

export function ipAllowed(ip: string, allowlist: readonly string[]): boolean {
  if (allowlist.length === 0) return true;
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(ip);
  } catch {
    return false;
  }
  for (const entry of allowlist) {
    const range = parseCidr(entry);
    if (!range) continue;
    const [net, bits] = range;
    const candidate = net.kind() === "ipv4" && addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress() ? (addr as ipaddr.IPv6).toIPv4Address() : addr;
    if (candidate.kind() === net.kind() && candidate.match([net, bits] as never)) return true;
  }
  return false;
}

/**
 * The page's access mode for one request. Suspended pages and callers outside the IP allow-list
 * get 404; members-only pages need a session of a member of the page's organisation.
 */
export async function decideAccess(sql: Sql, box: SecretBox, page: StatusPageRow, req: AccessRequest): Promise<AccessDecision> {
  if (page.suspended) return "deny";
  if (!ipAllowed(req.ip, page.ip_allowlist)) return "deny";
  if (page.access_mode === "public") return "allow";
  if (page.access_mode === "password") {
    const cookie = req.cookies(`${PAGE_COOKIE_PREFIX}${page.id}`);
    return cookie && page.password_hash && verifyPageCookie(box, page.id, page.password_hash, cookie) ? "allow" : "password";
  }
  const session = req.cookies("wp_session");
  if (!session) return "deny";
  const row = await findSessionIdentity(sql, hashToken(session), page.org_id);
  return row?.org_id === page.org_id ? "allow" : "deny";
}
