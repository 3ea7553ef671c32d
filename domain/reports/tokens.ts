import type { SecretBox } from "../../core/crypto/secrets.ts";

export interface ReportUnsubscribeClaims {
  reportId: string;
  email: string;
  /** Expiry, seconds since the epoch. */
  exp: number;
}

/** A year: a monthly report's link must still work several mails later. */
export const REPORT_UNSUBSCRIBE_TTL_SECONDS = 365 * 24 * 3600;
const PURPOSE = "report-unsubscribe";

/** `<payload>.<hmac>`, payload = base64url(JSON [reportId, email, exp]); the purpose is signed too, so no other token stands in. */
export function signReportUnsubscribe(box: SecretBox, claims: ReportUnsubscribeClaims): string {
  const payload = Buffer.from(JSON.stringify([claims.reportId, claims.email, claims.exp])).toString("base64url");
  return `${payload}.${box.sign(`${PURPOSE}:${payload}`)}`;
}

/** The claims of a good, unexpired token; null for anything forged, malformed or expired. */
export function verifyReportUnsubscribe(box: SecretBox, token: string, nowSeconds = Math.floor(Date.now() / 1000)): ReportUnsubscribeClaims | null {
  const dot = token.indexOf(".");
  if (dot <= 0) return null;
  const payload = token.slice(0, dot);
  if (!box.verify(`${PURPOSE}:${payload}`, token.slice(dot + 1))) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) return null;
  const [reportId, email, exp] = parsed as unknown[];
  if (typeof reportId !== "string" || typeof email !== "string" || !Number.isInteger(exp) || (exp as number) < nowSeconds) return null;
  return { reportId, email, exp: exp as number };
}
