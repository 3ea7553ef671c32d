import type { Sql } from "../client.ts";

export async function insertPasswordReset(sql: Sql, r: { tokenHash: Buffer; userId: string; expiresAt: Date }): Promise<void> {
  await sql`insert into password_resets (token_hash, user_id, expires_at) values (${r.tokenHash}, ${r.userId}, ${r.expiresAt})`;
}

/** Uses the token once; returns the user it was for, or nothing when unknown, used or expired. */
export async function consumePasswordReset(sql: Sql, tokenHash: Buffer): Promise<string | undefined> {
  const [row] = await sql<{ user_id: string }[]>`
    update password_resets set used_at = now() where token_hash = ${tokenHash} and used_at is null and expires_at > now() returning user_id`;
  return row?.user_id;
}
