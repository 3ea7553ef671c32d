import { createNodemailerTransport, type SmtpSettings } from "./smtp-transport.ts";
import type { Mailer } from "./mailer.ts";

/** A Mailer over SMTP (nodemailer), for deployments that configure SMTP; headers such as List-Unsubscribe pass through. */
export function createSmtpMailer(settings: SmtpSettings, timeoutMs = 10_000): Mailer {
  return {
    async send(message) {
      const transport = createNodemailerTransport(settings, timeoutMs);
      try {
        await transport.sendMail({
          from: settings.from,
          to: [message.to],
          subject: message.subject,
          text: message.text,
          html: message.html ?? "",
          headers: message.headers ?? {},
          attachments: (message.attachments ?? []).map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content, encoding: "base64", cid: a.cid })),
        });
      } finally {
        transport.close();
      }
    },
  };
}
