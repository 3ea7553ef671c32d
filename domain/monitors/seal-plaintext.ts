import type { SecretBox } from "../../core/crypto/secrets.ts";
import type { Logger } from "../../core/log.ts";
import type { Sql } from "../../db/client.ts";
import { monitorsWithSecretFields, replaceMonitorSecrets } from "../../db/queries/monitor-secrets.ts";
import { hasPlaintextSecrets, splitSecrets } from "./secrets.ts";

/**
 * Moves secrets that older releases stored in the clear (header values, before headers were
 * secrets) into secrets_enc. A migration cannot do it, it has no key: the API runs this at
 * start-up and `cli secret-key:rotate` before re-encrypting. Idempotent and safe to run from
 * several processes at once; answers how many monitors it sealed.
 */
export async function sealPlaintextMonitorSecrets(sql: Sql, box: SecretBox, log?: Logger, pageSize = 500): Promise<number> {
  let sealed = 0;
  for (let after = ""; ; ) {
    const page = await monitorsWithSecretFields(sql, after, pageSize);
    if (page.length === 0) return sealed;
    for (const row of page) {
      if (!hasPlaintextSecrets(row.config)) continue;
      try {
        const { config, secretsEnc } = splitSecrets(row.config, box, row);
        if (await replaceMonitorSecrets(sql, row.id, row.config, config, secretsEnc)) sealed++;
      } catch (err) {
        // Secrets readable with none of our keys: left for secret-key:rotate to report; the API still redacts them.
        log?.warn({ op: "monitors.seal-plaintext", monitorId: row.id, err }, "could not seal a monitor's plaintext secrets");
      }
    }
    after = page.at(-1)!.id;
  }
}
