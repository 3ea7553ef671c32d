import { createHash } from "node:crypto";
import type { Sql } from "../../db/client.ts";
import { AppError } from "../../core/errors.ts";
import { claimSignInAttempt, clearSignInThrottle, type ThrottlePolicy } from "../../db/queries/sign-in-throttles.ts";

/**
 * Per-account policy (docs/security.md, "Sign-in and second factor"): five attempts free, then a
 * delay of 15 s doubling per further failure up to 5 min; quiet for 15 min and it is forgotten.
 * It delays rather than locks, so an attacker can hold a victim back by minutes, never for good.
 */
export const SIGN_IN_THROTTLE: ThrottlePolicy = { freeAttempts: 5, baseDelaySeconds: 15, maxDelaySeconds: 300, forgetAfterSeconds: 900 };

/** The throttle's key: the SHA-256 of the lower-cased email, whether or not an account has it. */
const accountKey = (email: string): Buffer => createHash("sha256").update(email.trim().toLowerCase()).digest();

const accountThrottled = (retryAfterSeconds: number) =>
  new AppError(429, "RATE_LIMIT_EXCEEDED", "Too many failed attempts for this account; try again later", { retryAfterSeconds, reason: "account_throttled" });

/**
 * Runs one check of a password or second factor for the account of `email`: counted before it runs
 * (so parallel guesses cannot overtake the count), refused with 429 while the account is delayed,
 * and the count cleared when the check succeeds. Any throw counts as a failed attempt.
 */
export const throttledAttempt = <T>(sql: Sql, email: string, attempt: () => Promise<T>): Promise<T> => throttled(sql, accountKey(email), attempt);

/** A status page's password is a shared account of its own: the same policy, keyed by the page. */
export const statusPageKey = (pageId: string): Buffer => createHash("sha256").update(`status-page:${pageId}`).digest();

/** throttledAttempt for any key (see accountKey, statusPageKey). */
export async function throttled<T>(sql: Sql, key: Buffer, attempt: () => Promise<T>): Promise<T> {
  const wait = await claimSignInAttempt(sql, key, SIGN_IN_THROTTLE);
  if (wait !== null) throw accountThrottled(wait);
  const result = await attempt();
  await clearSignInThrottle(sql, key);
  return result;
}

/** A password reset proves control of the mailbox: the account starts afresh. */
export const clearAccountThrottle = (sql: Sql, email: string) => clearSignInThrottle(sql, accountKey(email));
