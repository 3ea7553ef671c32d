import { hashToken } from "../../core/crypto/secrets.ts";
import type { Sql } from "../../db/client.ts";
import { newId, randomToken } from "../../core/ids.ts";
import { insertSession, type SessionRow } from "../../db/queries/sessions.ts";

export interface NewSession {
  session: SessionRow;
  /** The cookie value; only its hash is stored. */
  token: string;
}

export async function createSession(
  sql: Sql,
  /** orgScope: the organisation whose single sign-on opened it, the only one it may act in. */
  input: { userId: string; ip: string | null; userAgent: string | null; ttlHours: number; orgScope?: string },
): Promise<NewSession> {
  const token = randomToken(32);
  const session = await insertSession(sql, {
    id: newId("ses"),
    userId: input.userId,
    tokenHash: hashToken(token),
    csrfToken: randomToken(24),
    ip: input.ip,
    userAgent: input.userAgent?.slice(0, 400) ?? null,
    expiresAt: new Date(Date.now() + input.ttlHours * 3600_000),
    orgScope: input.orgScope ?? null,
  });
  return { session, token };
}
