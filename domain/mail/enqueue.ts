import type { SecretBox } from "../../core/crypto/secrets.ts";
import { newId } from "../../core/ids.ts";
import type { MailMessage } from "../../core/mail/mailer.ts";
import type { Sql } from "../../db/client.ts";
import { insertMail, type MailKind } from "../../db/queries/mail-outbox.ts";

export interface OutgoingMail extends MailMessage {
  kind: MailKind;
  orgId?: string | null;
}

/**
 * Queues one message in the mail outbox; the alerting role sends it (with retries). Call it with the
 * transaction of the change that causes the mail, so there is no mail without the change and no change
 * without its mail. With `box`, the bodies are sealed: a message that carries a token is a secret at rest.
 */
export async function enqueueMail(tx: Sql, mail: OutgoingMail, box?: SecretBox): Promise<string> {
  const id = newId("mail");
  const seal = (s: string) => (box ? box.encrypt(s) : s);
  await insertMail(tx, {
    id,
    orgId: mail.orgId ?? null,
    kind: mail.kind,
    to: mail.to,
    subject: mail.subject,
    text: seal(mail.text),
    html: mail.html === undefined ? null : seal(mail.html),
    headers: mail.headers ?? {},
    attachments: mail.attachments ?? [],
    sealed: box !== undefined,
  });
  return id;
}
