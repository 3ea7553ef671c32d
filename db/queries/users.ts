import type { Sql } from "../client.ts";

export interface UserRow {
  id: string;
  email: string;
  name: string;
  password_hash: string;
  totp_secret_enc: string | null;
  totp_enabled: boolean;
  /** The last TOTP time step accepted (bigint, as text); null before the first. */
  totp_last_step: string | null;
  /** When a token mailed to `email` proved the user holds it; null until then and after an email change. */
  email_verified_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export async function insertUser(sql: Sql, u: { id: string; email: string; name: string; passwordHash: string }): Promise<UserRow> {
  const [row] = await sql<UserRow[]>`
    insert into users (id, email, name, password_hash) values (${u.id}, ${u.email}, ${u.name}, ${u.passwordHash}) returning *`;
  return row!;
}

export async function findUserByEmail(sql: Sql, email: string): Promise<UserRow | undefined> {
  const [row] = await sql<UserRow[]>`select * from users where lower(email) = lower(${email})`;
  return row;
}

export async function findUserById(sql: Sql, id: string): Promise<UserRow | undefined> {
  const [row] = await sql<UserRow[]>`select * from users where id = ${id}`;
  return row;
}

export async function updateUser(
  sql: Sql,
  id: string,
  patch: { name?: string; email?: string; passwordHash?: string; totpSecretEnc?: string | null; totpEnabled?: boolean },
): Promise<UserRow | undefined> {
  const [row] = await sql<UserRow[]>`
    update users set
      name = coalesce(${patch.name ?? null}, name),
      email = coalesce(${patch.email ?? null}, email),
      email_verified_at = case when lower(coalesce(${patch.email ?? null}, email)) = lower(email) then email_verified_at end,
      password_hash = coalesce(${patch.passwordHash ?? null}, password_hash),
      totp_secret_enc = case when ${patch.totpSecretEnc !== undefined} then ${patch.totpSecretEnc ?? null} else totp_secret_enc end,
      totp_enabled = coalesce(${patch.totpEnabled ?? null}, totp_enabled),
      updated_at = now()
    where id = ${id} returning *`;
  return row;
}

/** Records `step` as used; false when that step or a later one was already accepted (a replay). */
export async function recordTotpStep(sql: Sql, id: string, step: number): Promise<boolean> {
  const rows = await sql`update users set totp_last_step = ${step} where id = ${id} and (totp_last_step is null or totp_last_step < ${step}) returning id`;
  return rows.length === 1;
}

/** A new secret starts with no used step. */
export async function clearTotpStep(sql: Sql, id: string): Promise<void> {
  await sql`update users set totp_last_step = null where id = ${id}`;
}

/** Records that the user proved `email` (a token mailed there came back); a no-op if their email is another one now. */
export async function markEmailVerified(sql: Sql, id: string, email: string): Promise<void> {
  await sql`update users set email_verified_at = now() where id = ${id} and lower(email) = lower(${email})`;
}

export async function deleteUser(sql: Sql, id: string): Promise<void> {
  await sql`delete from users where id = ${id}`;
}
