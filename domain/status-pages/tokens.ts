import type { SecretBox } from "../../core/crypto/secrets.ts";

/** What a signed token is for; part of the signed data so one kind cannot stand in for another. */
export type TokenPurpose = "unsubscribe" | "confirm";

export interface SubscriberClaims {
  subscriberId: string;
  pageId: string;
  /** Expiry, seconds since the epoch. */
  exp: number;
}

export const UNSUBSCRIBE_TTL_SECONDS = 180 * 24 * 3600;
export const CONFIRM_TTL_SECONDS = 7 * 24 * 3600;

/** `<payload>.<hmac>`, payload = base64url("<subscriberId>:<pageId>:<exp>"). */
export function signSubscriberToken(box: SecretBox, purpose: TokenPurpose, claims: SubscriberClaims): string {
  const payload = Buffer.from(`${claims.subscriberId}:${claims.pageId}:${claims.exp}`).toString("base64url");
  return `${payload}.${box.sign(`${purpose}:${payload}`)}`;
}

/** The claims of a good, unexpired token of this purpose; null for anything forged, malformed or expired. */
export function verifySubscriberToken(box: SecretBox, purpose: TokenPurpose, token: string, nowSeconds = Math.floor(Date.now() / 1000)): SubscriberClaims | null {
  const dot = token.indexOf(".");
  if (dot <= 0) return null;
  const payload = token.slice(0, dot);
  const signature = token.slice(dot + 1);
  if (!box.verify(`${purpose}:${payload}`, signature)) return null;
  const [subscriberId, pageId, exp] = Buffer.from(payload, "base64url").toString("utf8").split(":");
  const expiry = Number(exp);
  if (!subscriberId || !pageId || !Number.isInteger(expiry) || expiry < nowSeconds) return null;
  return { subscriberId, pageId, exp: expiry };
}

export const PAGE_COOKIE_PREFIX = "wp_sp_";
export const PAGE_COOKIE_TTL_SECONDS = 7 * 24 * 3600;

/** A password page's access cookie: bound to the page and to its current password hash (changing the password logs everyone out). */
export function signPageCookie(box: SecretBox, pageId: string, passwordHash: string, exp: number): string {
  return `${exp}.${box.sign(`page:${pageId}:${exp}:${passwordHash}`)}`;
}

export function verifyPageCookie(box: SecretBox, pageId: string, passwordHash: string, value: string, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const dot = value.indexOf(".");
  if (dot <= 0) return false;
  const exp = Number(value.slice(0, dot));
  if (!Number.isInteger(exp) || exp < nowSeconds) return false;
  return box.verify(`page:${pageId}:${exp}:${passwordHash}`, value.slice(dot + 1));
}
