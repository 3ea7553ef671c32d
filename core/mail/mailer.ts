import type { Logger } from "../log.ts";

/** An inline image or file; with `cid`, the HTML shows it as `<img src="cid:...">` (no remote fetch). */
export interface MailAttachment {
  filename: string;
  contentType: string;
  /** The bytes, base64. */
  content: string;
  cid?: string;
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  headers?: Record<string, string>;
  attachments?: MailAttachment[];
}

/** Transactional mail (password resets, invitations). SMTP arrives with the email channel. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** Writes each message to the log: the default until SMTP is configured. */
export function createLogMailer(log: Logger): Mailer {
  return {
    async send(message) {
      log.info({ op: "mail.send", to: message.to, subject: message.subject, text: message.text }, "mail (log transport)");
    },
  };
}

/** Keeps messages in memory; tests read them back. */
export function createMemoryMailer(): Mailer & { sent: MailMessage[] } {
  const sent: MailMessage[] = [];
  return { sent, async send(message) { sent.push(message); } };
}

/** A failed send, said in retry terms: SMTP 5xx replies (but 503) and envelope/auth errors cannot succeed on retry. */
export function mailFailure(err: unknown): { message: string; permanent: boolean; status?: number } {
  const e = err as { message?: string; responseCode?: number; code?: string };
  const permanent = (typeof e.responseCode === "number" && e.responseCode >= 500 && e.responseCode !== 503) || ["EENVELOPE", "ENOAUTH", "ECONFIG"].includes(e.code ?? "");
  return { message: `SMTP: ${e.message ?? String(err)}`, permanent, status: e.responseCode };
}
