import { Type } from "@sinclair/typebox";
import type { SmtpSettings } from "../mail/smtp-transport.ts";
import { EnvBool } from "./parse-env.ts";

/**
 * The deployment's SMTP server: email alert channels, status-page subscriber mail, invitations and
 * password resets. Read by the API and the alerting role (each spreads these into its schema).
 * Without SMTP_HOST, mail is written to the log and email channels fail as "no SMTP configured".
 */
export const smtpEnv = {
  SMTP_HOST: Type.Optional(Type.String({ minLength: 1, description: "SMTP server host name; unset writes mail to the log and email alert channels fail" })),
  SMTP_PORT: Type.Integer({ minimum: 1, maximum: 65535, default: 587, description: "SMTP server port, 1-65535" }),
  SMTP_SECURE: EnvBool(false, "TLS from the first byte (usually port 465); otherwise STARTTLS when the server offers it"),
  SMTP_USER: Type.Optional(Type.String({ minLength: 1, description: "SMTP user name (AUTH); unset sends without authentication" })),
  SMTP_PASSWORD: Type.Optional(Type.String({ minLength: 1, description: "SMTP password, with SMTP_USER" })),
  SMTP_FROM: Type.String({ minLength: 3, default: "Watchpost <watchpost@localhost>", description: "sender of every message, e.g. Watchpost <alerts@example.com>" }),
};

export interface SmtpConfig {
  SMTP_HOST?: string;
  SMTP_PORT: number;
  SMTP_SECURE: boolean;
  SMTP_USER?: string;
  SMTP_PASSWORD?: string;
  SMTP_FROM: string;
}

/** The settings the email channel and the SMTP mailer take, or undefined when SMTP is not configured. */
export function smtpSettingsOf(config: SmtpConfig): SmtpSettings | undefined {
  if (!config.SMTP_HOST) return undefined;
  return {
    host: config.SMTP_HOST,
    port: config.SMTP_PORT,
    secure: config.SMTP_SECURE,
    ...(config.SMTP_USER ? { auth: { user: config.SMTP_USER, pass: config.SMTP_PASSWORD ?? "" } } : {}),
    from: config.SMTP_FROM,
  };
}
