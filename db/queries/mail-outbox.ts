import type { MailAttachment } from "../../core/mail/mailer.ts";
import type { Sql } from "../client.ts";

export type MailKind = "invitation" | "password_reset" | "subscription_confirmation" | "billing_reminder" | "report";

export interface MailOutboxRow {
  id: string;
  org_id: string | null;
  kind: MailKind;
  to_addr: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  headers: Record<string, string>;
  attachments: MailAttachment[];
  /** text_body and html_body are sealed with the secret key (they hold a token). */
  sealed: boolean;
  status: "pending" | "sent" | "failed";
  attempts: number;
  next_attempt_at: Date;
  lease_until: Date | null;
  last_error: string | null;
  created_at: Date;
  sent_at: Date | null;
}

export interface NewMail {
  id: string;
  orgId: string | null;
  kind: MailKind;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  headers: Record<string, string>;
  attachments: MailAttachment[];
  sealed: boolean;
}

export async function insertMail(tx: Sql, m: NewMail): Promise<void> {
  await tx`
    insert into mail_outbox (id, org_id, kind, to_addr, subject, text_body, html_body, headers, attachments, sealed)
    values (${m.id}, ${m.orgId}, ${m.kind}, ${m.to}, ${m.subject}, ${m.text}, ${m.html}, ${tx.json(m.headers)}, ${tx.json(m.attachments as never)}, ${m.sealed})`;
}

/** Claims due pending mail (SKIP LOCKED) and counts the attempt; a claim holds it for `leaseMs`. */
export async function claimMail(sql: Sql, limit: number, leaseMs: number): Promise<MailOutboxRow[]> {
  return sql<MailOutboxRow[]>`
    update mail_outbox m set attempts = m.attempts + 1, lease_until = now() + make_interval(secs => ${leaseMs / 1000})
    from (
      select id from mail_outbox
      where status = 'pending' and next_attempt_at <= now() and (lease_until is null or lease_until <= now())
      order by next_attempt_at, id for update skip locked limit ${limit}
    ) due
    where m.id = due.id
    returning m.*`;
}

/** Sent and given-up mail keeps its envelope for the record; its body (which may hold a token) is cleared. */
export async function markMail(
  sql: Sql,
  id: string,
  outcome: { status: "sent" } | { status: "failed"; error: string } | { status: "pending"; error: string; retryInMs: number },
): Promise<void> {
  if (outcome.status === "sent")
    await sql`update mail_outbox set status = 'sent', sent_at = now(), lease_until = null, last_error = null, text_body = '', html_body = null, attachments = '[]' where id = ${id}`;
  else if (outcome.status === "failed")
    await sql`update mail_outbox set status = 'failed', lease_until = null, last_error = ${outcome.error}, text_body = '', html_body = null, attachments = '[]' where id = ${id}`;
  else
    await sql`
      update mail_outbox set lease_until = null, last_error = ${outcome.error}, next_attempt_at = now() + make_interval(secs => ${outcome.retryInMs / 1000})
      where id = ${id}`;
}
