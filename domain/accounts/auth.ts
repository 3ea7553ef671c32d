import type { SecretBox } from "../../core/crypto/secrets.ts";
import { hashToken } from "../../core/crypto/secrets.ts";
import { isUniqueViolation, type Sql, withTx } from "../../db/client.ts";
import { AppError, conflict, permissionDenied, validationError } from "../../core/errors.ts";
import { newId, randomToken } from "../../core/ids.ts";
import { enqueueMail } from "../mail/enqueue.ts";
import { deleteAllUserSessions } from "../../db/queries/sessions.ts";
import { consumePasswordReset, insertPasswordReset } from "../../db/queries/password-resets.ts";
import { findUserByEmail, insertUser, updateUser, type UserRow } from "../../db/queries/users.ts";
import { joinByInvitationToken } from "./invitations.ts";
import { createOrgWithOwner } from "./orgs.ts";
import { DUMMY_HASH, hashPassword, verifyPassword } from "./passwords.ts";
import { useRecoveryCode } from "./recovery-codes.ts";
import { clearAccountThrottle, throttledAttempt } from "./sign-in-throttle.ts";
import { assertPasswordSignInAllowed } from "./sso-sign-in.ts";
import { useTotpCode } from "./totp.ts";

const invalidCredentials = () => new AppError(401, "UNAUTHENTICATED", "Invalid email, password or code");

/**
 * A new account: with an invitation's token, a member of the inviting organisation (joinByInvitationToken), which
 * works also where sign-up is closed; otherwise, where it is open, the owner of a new organisation of its own.
 */
export async function signUp(
  sql: Sql,
  input: { email: string; password: string; name: string; org_name?: string; invitation_token?: string },
  policy: { open: boolean },
): Promise<{ user: UserRow; orgId: string }> {
  if (input.invitation_token === undefined && !policy.open) {
    throw permissionDenied("Sign-up is closed on this installation: ask an administrator of your organisation for an invitation", { reason: "signup_closed" });
  }
  const passwordHash = await hashPassword(input.password);
  try {
    return await withTx(sql, async (tx) => {
      const user = await insertUser(tx, { id: newId("usr"), email: input.email.trim(), name: input.name, passwordHash });
      if (input.invitation_token !== undefined) return { user, orgId: (await joinByInvitationToken(tx, user, input.invitation_token)).org_id };
      const org = await createOrgWithOwner(tx, { name: input.org_name ?? `${input.name}'s organisation`, userId: user.id, isDefault: true });
      return { user, orgId: org.id };
    });
  } catch (err) {
    if (isUniqueViolation(err, "users_email_key")) throw conflict("An account with this email already exists");
    throw err;
  }
}

/**
 * Checks email, password and (when enabled) a TOTP code or a recovery code; every failure looks
 * the same to the caller. Each try counts against the account's throttle (sign-in-throttle.ts).
 */
export async function verifySignIn(
  sql: Sql,
  box: SecretBox,
  input: { email: string; password: string; totp_code?: string; recovery_code?: string },
): Promise<UserRow> {
  if (input.totp_code !== undefined && input.recovery_code !== undefined) {
    throw validationError([{ path: "body.recovery_code", message: "Send either totp_code or recovery_code, not both" }]);
  }
  const user = await throttledAttempt(sql, input.email, async () => {
    const user = await findUserByEmail(sql, input.email);
    const ok = await verifyPassword(input.password, user?.password_hash ?? DUMMY_HASH);
    if (!user || !ok) throw invalidCredentials();
    if (!user.totp_enabled) return user;
    if (input.recovery_code !== undefined) {
      if (!(await useRecoveryCode(sql, user.id, input.recovery_code))) throw invalidCredentials();
    } else if (input.totp_code === undefined) {
      throw new AppError(401, "UNAUTHENTICATED", "Two-factor code required", { reason: "totp_required" });
    } else if (!(await useTotpCode(sql, box, user, input.totp_code))) throw invalidCredentials();
    return user;
  });
  // Only after the password (and code) proved right, so the refusal tells a stranger nothing.
  await assertPasswordSignInAllowed(sql, user.id);
  return user;
}

/** Writes the reset token and queues its mail (sealed: it carries the token) in one transaction; the alerting role sends it. */
export async function requestPasswordReset(sql: Sql, box: SecretBox, baseUrl: string, email: string): Promise<void> {
  const user = await findUserByEmail(sql, email);
  if (!user) return; // the answer is the same whether the account exists or not
  const token = randomToken(32);
  await withTx(sql, async (tx) => {
    await insertPasswordReset(tx, { tokenHash: hashToken(token), userId: user.id, expiresAt: new Date(Date.now() + 3600_000) });
    await enqueueMail(
      tx,
      {
        kind: "password_reset",
        to: user.email,
        subject: "Reset your Watchpost password",
        text: `Use this token within one hour to choose a new password: ${token}\n${baseUrl}/password-reset?token=${token}`,
      },
      box,
    );
  });
}

export async function confirmPasswordReset(sql: Sql, input: { token: string; password: string }): Promise<void> {
  const passwordHash = await hashPassword(input.password);
  await withTx(sql, async (tx) => {
    const userId = await consumePasswordReset(tx, hashToken(input.token));
    if (!userId) throw validationError([{ path: "body.token", message: "Reset token is invalid, used or expired" }], "Reset token is invalid, used or expired");
    const user = await updateUser(tx, userId, { passwordHash });
    await deleteAllUserSessions(tx, userId);
    if (user) await clearAccountThrottle(tx, user.email);
  });
}
