import type { SecretBox } from "../../core/crypto/secrets.ts";
import type { Sql } from "../../db/client.ts";
import { plaintextWebhookSubscribers, sealWebhookSubscriber } from "../../db/queries/subscribers.ts";
import { sealWebhookUrl } from "./subscribers.ts";

/**
 * Encrypts webhook subscriber URLs that earlier releases stored in clear. Run by the API at
 * start-up and by `cli secret-key:rotate` (a migration has no key); idempotent, and safe to run
 * from several processes at once. Answers how many rows it sealed (or removed as duplicates).
 */
export async function sealPlaintextSubscriberWebhooks(sql: Sql, box: SecretBox, pageSize = 500): Promise<number> {
  let sealed = 0;
  for (let after = ""; ; ) {
    const page = await plaintextWebhookSubscribers(sql, after, pageSize);
    if (page.length === 0) return sealed;
    for (const row of page) {
      const { enc, hash } = sealWebhookUrl(box, row.webhook_url);
      if ((await sealWebhookSubscriber(sql, row.id, row.webhook_url, enc, hash)) !== "changed") sealed++;
    }
    after = page.at(-1)!.id;
  }
}
