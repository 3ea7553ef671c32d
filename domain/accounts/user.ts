import * as OTPAuth from "otpauth";
import type { SecretBox } from "../../core/crypto/secrets.ts";
import { isUniqueViolation, type Sql, withTx } from "../../db/client.ts";
import { AppError, conflict, notFound, validationError } from "../../core/errors.ts";
import { deleteOrg, listUserOrgs } from "../../db/queries/orgs.ts";
import { soleOwnedOrgs } from "../../db/queries/members.ts";
import { deleteAllUserSessions, deleteUserSession, listUserSessions } from "../../db/queries/sessions.ts";
import { deleteRecoveryCodes } from "../../db/queries/recovery-codes.ts";
import { clearTotpStep, deleteUser, findUserById, updateUser, type UserRow } from "../../db/queries/users.ts";
import { issueRecoveryCodes, useRecoveryCode } from "./recovery-codes.ts";
import { throttledAttempt } from "./sign-in-throttle.ts";
import { newTotp, useTotpCode } from "./totp.ts";
import { hashPassword, verifyPassword } from "./passwords.ts";

export async function getProfile(sql: Sql, userId: string): Promise<UserRow> {
  const user = await findUserById(sql, userId);
  if (!user) throw notFound("User");
  return user;
}

export async function updateProfile(
  sql: Sql,
  userId: string,
  sessionId: string | null,
  input: { name?: string; email?: string; password?: string; current_password?: string },
): Promise<UserRow> {
  const user = await getProfile(sql, userId);
  if (input.password || input.email) {
    const wrong = () => validationError([{ path: "body.current_password", message: "Current password is required and must be correct to change email or password" }]);
    if (!input.current_password) throw wrong();
    // Guessing it through a stolen session counts against the same throttle as sign-in.
    await throttledAttempt(sql, user.email, async () => {
      if (!(await verifyPassword(input.current_password!, user.password_hash))) throw wrong();
    });
  }
  try {
    const updated = await updateUser(sql, userId, {
      name: input.name,
      email: input.email,
      passwordHash: input.password ? await hashPassword(input.password) : undefined,
    });
    if (input.password) await deleteAllUserSessions(sql, userId, sessionId);
    return updated!;
  } catch (err) {
    if (isUniqueViolation(err, "users_email_key")) throw conflict("An account with this email already exists");
    throw err;
  }
}

export const listSessions = listUserSessions;

export async function revokeSession(sql: Sql, userId: string, sessionId: string): Promise<void> {
  if (!(await deleteUserSession(sql, userId, sessionId))) throw notFound("Session");
}

/** Starts TOTP enrolment: stores a new secret (not yet enabled) and returns it with its otpauth:// URI. */
export async function setupTotp(sql: Sql, box: SecretBox, userId: string): Promise<{ secret: string; otpauth_url: string }> {
  const user = await getProfile(sql, userId);
  if (user.totp_enabled) throw conflict("Two-factor authentication is already enabled");
  const secret = new OTPAuth.Secret({ size: 20 });
  await withTx(sql, async (tx) => {
    await updateUser(tx, userId, { totpSecretEnc: box.encrypt(secret.base32), totpEnabled: false });
    await clearTotpStep(tx, userId);
  });
  return { secret: secret.base32, otpauth_url: newTotp(secret, user.email).toString() };
}

const invalidCode = (path: string) => validationError([{ path, message: "Code is not valid" }]);

/** Turns 2FA on with a first code from the authenticator and returns the recovery codes: the only time they are shown. */
export async function enableTotp(sql: Sql, box: SecretBox, userId: string, code: string): Promise<{ user: UserRow; recoveryCodes: string[] }> {
  const user = await getProfile(sql, userId);
  if (user.totp_enabled) throw conflict("Two-factor authentication is already enabled");
  if (!user.totp_secret_enc) throw conflict("Start two-factor setup first");
  if (!(await useTotpCode(sql, box, user, code))) throw invalidCode("body.code");
  return withTx(sql, async (tx) => {
    const updated = await updateUser(tx, userId, { totpEnabled: true });
    return { user: updated!, recoveryCodes: await issueRecoveryCodes(tx, userId) };
  });
}

/** A second factor given on a signed-in request: exactly one of a TOTP code, a recovery code or the password. */
export type Reauth = { code?: string; recovery_code?: string; password?: string };

/** Checks `proof` (one field of those `allowed`), throttled like sign-in; a wrong one is a 400 on its field. */
async function reauthenticate(sql: Sql, box: SecretBox, user: UserRow, proof: Reauth, allowed: (keyof Reauth)[]): Promise<void> {
  const given = allowed.filter((k) => proof[k] !== undefined);
  if (given.length !== 1) throw validationError([{ path: "body", message: `Send exactly one of: ${allowed.join(", ")}` }]);
  const field = given[0]!;
  const value = proof[field]!;
  await throttledAttempt(sql, user.email, async () => {
    const ok =
      field === "password"
        ? await verifyPassword(value, user.password_hash)
        : field === "code"
          ? await useTotpCode(sql, box, user, value)
          : await useRecoveryCode(sql, user.id, value);
    if (!ok) throw field === "password" ? validationError([{ path: "body.password", message: "Password is not correct" }]) : invalidCode(`body.${field}`);
  });
}

/** Turns 2FA off with a current TOTP code or, when the authenticator is lost, a recovery code. */
export async function disableTotp(sql: Sql, box: SecretBox, userId: string, proof: Reauth): Promise<void> {
  const user = await getProfile(sql, userId);
  if (!user.totp_enabled || !user.totp_secret_enc) throw conflict("Two-factor authentication is not enabled");
  await reauthenticate(sql, box, user, proof, ["code", "recovery_code"]);
  await withTx(sql, async (tx) => {
    await updateUser(tx, userId, { totpEnabled: false, totpSecretEnc: null });
    await deleteRecoveryCodes(tx, userId);
    await clearTotpStep(tx, userId);
  });
}

/** Replaces the recovery codes after the password or a TOTP code; the old ones stop working at once. */
export async function regenerateRecoveryCodes(sql: Sql, box: SecretBox, userId: string, proof: Reauth): Promise<string[]> {
  const user = await getProfile(sql, userId);
  if (!user.totp_enabled) throw conflict("Two-factor authentication is not enabled");
  await reauthenticate(sql, box, user, proof, ["password", "code"]);
  return withTx(sql, (tx) => issueRecoveryCodes(tx, userId));
}

/** Everything the user owns or is: profile, memberships, sessions, keys and their own audit entries. */
export async function exportUserData(sql: Sql, userId: string): Promise<Record<string, unknown>> {
  const user = await getProfile(sql, userId);
  const [orgs, sessions, apiKeys, audit] = await Promise.all([
    listUserOrgs(sql, userId),
    listUserSessions(sql, userId),
    sql`select id, org_id, name, display_prefix, scopes, created_at, last_used_at, expires_at, revoked_at from api_keys where created_by = ${userId}`,
    sql`select org_id, action, target_type, target_id, ip, created_at from audit_log where actor_id = ${userId} order by created_at desc limit 10000`,
  ]);
  return {
    exported_at: new Date().toISOString(),
    user: { id: user.id, email: user.email, name: user.name, two_factor_enabled: user.totp_enabled, created_at: user.created_at },
    organisations: orgs.map((o) => ({ id: o.id, name: o.name, role: o.role_id, plan: o.plan_id })),
    sessions: sessions.map((s) => ({ id: s.id, ip: s.ip, user_agent: s.user_agent, created_at: s.created_at, last_seen_at: s.last_seen_at })),
    api_keys: apiKeys,
    audit_log: audit,
  };
}

/**
 * Deletes the account. Organisations the user solely owns are deleted with it when they have no
 * other members; when they do, the request is refused until ownership is handed over.
 */
export async function deleteAccount(sql: Sql, userId: string, password: string): Promise<{ deleted_organisations: string[] }> {
  const user = await getProfile(sql, userId);
  await throttledAttempt(sql, user.email, async () => {
    if (!(await verifyPassword(password, user.password_hash))) throw new AppError(401, "UNAUTHENTICATED", "Password is not correct");
  });
  return withTx(sql, async (tx) => {
    const owned = await soleOwnedOrgs(tx, userId);
    const blocking = owned.filter((o) => o.other_members > 0);
    if (blocking.length > 0) {
      throw conflict("Transfer ownership of these organisations before deleting your account", {
        organisations: blocking.map((o) => ({ id: o.org_id, name: o.name, other_members: o.other_members })),
      });
    }
    for (const o of owned) await deleteOrg(tx, o.org_id);
    await deleteUser(tx, userId);
    return { deleted_organisations: owned.map((o) => o.org_id) };
  });
}
