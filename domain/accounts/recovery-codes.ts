import { randomInt } from "node:crypto";
import { hashToken } from "../../core/crypto/secrets.ts";
import type { Sql } from "../../db/client.ts";
import { consumeRecoveryCode, replaceRecoveryCodes } from "../../db/queries/recovery-codes.ts";

const RECOVERY_CODE_COUNT = 10;
// 32 letters and digits without the look-alikes 0/o and 1/l; 16 of them are 80 random bits,
// beyond guessing even from a stolen digest, so a plain SHA-256 is enough to store them.
const ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789";

function newCode(): string {
  let s = "";
  for (let i = 0; i < 16; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s.match(/.{4}/g)!.join("-");
}

/** How a typed code is compared: case, spaces and hyphens do not matter. */
const digest = (code: string) => hashToken(code.toLowerCase().replace(/[\s-]/g, ""));

/** Issues a fresh set of codes (dropping the old ones) and returns them: the only time they are shown. */
export async function issueRecoveryCodes(sql: Sql, userId: string): Promise<string[]> {
  const codes = new Set<string>();
  while (codes.size < RECOVERY_CODE_COUNT) codes.add(newCode());
  await replaceRecoveryCodes(sql, userId, [...codes].map(digest));
  return [...codes];
}

/** Spends one code of the user's; false when it is not theirs or already used. */
export const useRecoveryCode = (sql: Sql, userId: string, code: string): Promise<boolean> => consumeRecoveryCode(sql, userId, digest(code));
