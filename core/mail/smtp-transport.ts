import nodemailer from "nodemailer";

/** Deployment SMTP settings (from the environment, never from a channel's config). */
export interface SmtpSettings {
  host: string;
  port: number;
  /** TLS from the first byte (465); false means STARTTLS when offered. */
  secure: boolean;
  auth?: { user: string; pass: string };
  /** Sender, e.g. `Watchpost <alerts@example.com>`. */
  from: string;
}

export interface SmtpMessage {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
  attachments?: { filename: string; contentType: string; content: string; encoding: "base64"; cid?: string }[];
}

interface SmtpSendInfo {
  messageId: string;
  accepted: unknown[];
  rejected: unknown[];
  response: string;
}

export interface SmtpTransport {
  sendMail(message: SmtpMessage): Promise<SmtpSendInfo>;
  close(): void;
}

/** One nodemailer SMTP transport per delivery; alert mail is rare enough that pooling buys nothing. */
export function createNodemailerTransport(settings: SmtpSettings, timeoutMs: number): SmtpTransport {
  return nodemailer.createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    auth: settings.auth,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
}
