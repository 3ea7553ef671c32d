import type { Sql } from "../client.ts";

/** Replaces every recovery code of the user (used or not) with these digests. */
export async function replaceRecoveryCodes(sql: Sql, userId: string, hashes: Buffer[]): Promise<void> {
  await sql`delete from recovery_codes where user_id = ${userId}`;
  if (hashes.length > 0) await sql`insert into recovery_codes ${sql(hashes.map((h) => ({ user_id: userId, code_hash: h })))}`;
}

/** Uses the code once: true when it was the user's and unused. */
export async function consumeRecoveryCode(sql: Sql, userId: string, hash: Buffer): Promise<boolean> {
  const rows = await sql`update recovery_codes set used_at = now() where user_id = ${userId} and code_hash = ${hash} and used_at is null returning user_id`;
  return rows.length === 1;
}

export async function deleteRecoveryCodes(sql: Sql, userId: string): Promise<void> {
  await sql`delete from recovery_codes where user_id = ${userId}`;
}
