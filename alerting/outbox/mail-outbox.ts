import type { SecretBox } from "../../core/crypto/secrets.ts";
import type { Logger } from "../../core/log.ts";
import { type Mailer, mailFailure } from "../../core/mail/mailer.ts";
import { nextAttempt, type RetryPolicy } from "../../core/retry.ts";
import type { Sql } from "../../db/client.ts";
import { claimMail, type MailOutboxRow, markMail } from "../../db/queries/mail-outbox.ts";
import { type OutboxLoop, startOutboxLoop } from "./outbox-loop.ts";

export interface MailOutboxDeps {
  sql: Sql;
  /** Opens sealed bodies (messages that carry a token). */
  box: SecretBox;
  /** SMTP, or the log transport without SMTP_HOST. */
  mailer: Mailer;
  log: Logger;
}

export interface MailOutboxOptions {
  limit?: number;
  /** How long a claimed message is ours before another process may send it. */
  leaseMs?: number;
  policy?: RetryPolicy;
  pollMs?: number;
}

const DEFAULT_POLICY: RetryPolicy = { attempts: 6, baseMs: 10_000, maxMs: 600_000 };

function messageOf(box: SecretBox, m: MailOutboxRow) {
  const open = (s: string) => (m.sealed ? box.decrypt(s) : s);
  return { to: m.to_addr, subject: m.subject, text: open(m.text_body), ...(m.html_body === null ? {} : { html: open(m.html_body) }), ...(Object.keys(m.headers).length ? { headers: m.headers } : {}), ...(m.attachments?.length ? { attachments: m.attachments } : {}) };
}

/**
 * One pass over the mail outbox: due messages claimed with SKIP LOCKED, one attempt each; a retryable
 * failure comes back after a backoff (core/retry), a permanent one or the last attempt is marked failed.
 * Returns how many were claimed.
 */
export async function deliverMail(d: MailOutboxDeps, o: MailOutboxOptions = {}): Promise<number> {
  const policy = o.policy ?? DEFAULT_POLICY;
  const claimed = await claimMail(d.sql, o.limit ?? 50, o.leaseMs ?? 60_000);
  await Promise.all(
    claimed.map(async (m) => {
      const log = { op: "mail.outbox", mail: m.id, kind: m.kind, orgId: m.org_id, attempt: m.attempts };
      try {
        await d.mailer.send(messageOf(d.box, m));
        await markMail(d.sql, m.id, { status: "sent" });
        d.log.info(log, "mail sent");
      } catch (err) {
        const f = mailFailure(err);
        const next = nextAttempt(m.attempts, f, policy);
        await markMail(d.sql, m.id, next.giveUp ? { status: "failed", error: f.message } : { status: "pending", error: f.message, retryInMs: next.delayMs });
        d.log.warn({ ...log, permanent: f.permanent, giveUp: next.giveUp, err: f.message }, "mail not sent");
      }
    }),
  );
  return claimed.length;
}

/** The mail deliverer of the alerting role: woken by NOTIFY when mail is queued (by the API), and every `pollMs` for retries. */
export function startMailOutbox(d: MailOutboxDeps, o: MailOutboxOptions = {}): Promise<OutboxLoop> {
  return startOutboxLoop({ sql: d.sql, channel: "wp_mail_outbox", op: "mail.outbox", log: d.log, pollMs: o.pollMs ?? 5_000, pass: () => deliverMail(d, o) });
}
