import * as OTPAuth from "otpauth";
import type { SecretBox } from "../crypto/secrets.ts";
import { isUniqueViolation, type Sql, withTx } from "../db/client.ts";
import { AppError, conflict, notFound, validationError } from "../errors.ts";
import { deleteOrg, listUserOrgs } from "../../db/queries/orgs.ts";
import { soleOwnedOrgs } from "../../db/queries/members.ts";
import { deleteAllUserSessions, deleteUserSession, listUserSessions } from "../../db/queries/sessions.ts";
import { deleteUser, findUserById, updateUser, type UserRow } from "../../db/queries/users.ts";
import { checkTotp, newTotp } from "./auth.ts";
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
  if ((input.password || input.email) && !(input.current_password && (await verifyPassword(input.current_password, user.password_hash)))) {
    throw validationError([{ path: "/current_password", message: "Current password is required and must be correct to change email or password" }]);
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
  await updateUser(sql, userId, { totpSecretEnc: box.encrypt(secret.base32), totpEnabled: false });
  return { secret: secret.base32, otpauth_url: newTotp(secret, user.email).toString() };
}

export async function enableTotp(sql: Sql, box: SecretBox, userId: string, code: string): Promise<void> {
  const user = await getProfile(sql, userId);
  if (!user.totp_secret_enc) throw conflict("Start two-factor setup first");
  if (!checkTotp(box.decrypt(user.totp_secret_enc), code)) throw validationError([{ path: "/code", message: "Code is not valid" }]);
  await updateUser(sql, userId, { totpEnabled: true });
}

export async function disableTotp(sql: Sql, box: SecretBox, userId: string, code: string): Promise<void> {
  const user = await getProfile(sql, userId);
  if (!user.totp_enabled || !user.totp_secret_enc) throw conflict("Two-factor authentication is not enabled");
  if (!checkTotp(box.decrypt(user.totp_secret_enc), code)) throw validationError([{ path: "/code", message: "Code is not valid" }]);
  await updateUser(sql, userId, { totpEnabled: false, totpSecretEnc: null });
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
  if (!(await verifyPassword(password, user.password_hash))) throw new AppError(401, "UNAUTHENTICATED", "Password is not correct");
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
