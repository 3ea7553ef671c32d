import type { Sql } from "../../db/client.ts";
import { ENCRYPTED_COLUMNS, encryptedValuesPage, replaceEncryptedValue } from "../../db/queries/secret-rotation.ts";
import type { SecretBox } from "../../core/crypto/secrets.ts";

export interface RotationReport {
  /** `table.column` → values seen, re-encrypted with the current key, and readable with none of the keys. */
  columns: Record<string, { checked: number; reencrypted: number; unreadable: number }>;
  unreadable: number;
}

/**
 * Step two of a SECRET_KEY rotation: every stored secret still encrypted with a previous key is
 * decrypted and encrypted again with the current one, row by row (safe to run while the roles run,
 * and to run again). Afterwards SECRET_KEY_PREVIOUS is only needed for signed links already sent.
 */
export async function reencryptStoredSecrets(sql: Sql, box: SecretBox, pageSize = 500): Promise<RotationReport> {
  const report: RotationReport = { columns: {}, unreadable: 0 };
  for (const c of ENCRYPTED_COLUMNS) {
    const stats = { checked: 0, reencrypted: 0, unreadable: 0 };
    for (let after = ""; ; ) {
      const page = await encryptedValuesPage(sql, c, after, pageSize);
      if (page.length === 0) break;
      for (const { id, value } of page) {
        stats.checked++;
        if (box.isCurrent(value)) continue;
        let plain: string;
        try {
          plain = box.decrypt(value);
        } catch {
          stats.unreadable++;
          continue;
        }
        if (await replaceEncryptedValue(sql, c, id, value, box.encrypt(plain))) stats.reencrypted++;
      }
      after = page.at(-1)!.id;
    }
    report.columns[`${c.table}.${c.column}`] = stats;
    report.unreadable += stats.unreadable;
  }
  return report;
}
