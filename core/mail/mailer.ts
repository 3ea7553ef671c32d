import type { Logger } from "../log.ts";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  headers?: Record<string, string>;
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
