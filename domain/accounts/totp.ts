import * as OTPAuth from "otpauth";
import type { SecretBox } from "../../core/crypto/secrets.ts";
import type { Sql } from "../../db/client.ts";
import { recordTotpStep, type UserRow } from "../../db/queries/users.ts";

export function newTotp(secret: OTPAuth.Secret, label: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({ issuer: "Watchpost", label, algorithm: "SHA1", digits: 6, period: 30, secret });
}

/** The time step whose code `code` is (±1 step of now), or null when it matches none. */
function totpStep(secretBase32: string, code: string, now = Date.now()): number | null {
  const totp = newTotp(OTPAuth.Secret.fromBase32(secretBase32), "user");
  const delta = totp.validate({ token: code.replace(/\s/g, ""), timestamp: now, window: 1 });
  return delta === null ? null : totp.counter({ timestamp: now }) + delta;
}

/**
 * Accepts a TOTP code of the user's current secret at most once: the step it belongs to must be
 * later than the last step accepted, recorded atomically (RFC 6238 §5.2), so a seen code is dead.
 */
export async function useTotpCode(sql: Sql, box: SecretBox, user: UserRow, code: string): Promise<boolean> {
  if (!user.totp_secret_enc) return false;
  const step = totpStep(box.decrypt(user.totp_secret_enc), code);
  return step !== null && (await recordTotpStep(sql, user.id, step));
}
