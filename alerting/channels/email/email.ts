import { createHash } from "node:crypto";
import { escapeHtml, formatTime, renderEvent } from "../format.ts";
import { cutBody } from "../http.ts";
import type { SmtpMessage, SmtpSettings } from "../../../core/mail/smtp-transport.ts";
import { type AlertEvent, type BoundTemplate, type Channel, ChannelError } from "../types.ts";
import { emailConfig, type EmailConfig } from "./email-schema.ts";

export { type EmailConfig };

function emailMessage(event: AlertEvent, config: EmailConfig, smtp: SmtpSettings, template?: BoundTemplate): SmtpMessage {
  const r = renderEvent(event);
  const unsubscribe = event.links.unsubscribe;
  // A template's body replaces the title, headline, facts and links; the footer and unsubscribe link stay.
  const ownText = template?.render("body", "plain");
  const ownHtml = template?.render("body", "html");
  const text = [
    ...(ownText !== undefined
      ? [ownText]
      : [r.title, r.headline, "", ...r.facts.map((f) => `${f.name}: ${f.value}`), "", ...r.links.map((l) => `${l.text}: ${l.url}`)]),
    "",
    `${event.org.name} · Watchpost · ${formatTime(event.occurredAt)}`,
    ...(unsubscribe ? [`Stop these emails: ${unsubscribe}`] : []),
  ].join("\n");
  const colour = `#${r.color.toString(16).padStart(6, "0")}`;
  const rows = r.facts.map((f) => `<tr><th align="left" style="padding:2px 12px 2px 0">${escapeHtml(f.name)}</th><td>${escapeHtml(f.value)}</td></tr>`);
  const buttons = r.links.map((l) => `<a href="${escapeHtml(l.url)}" style="margin-right:16px">${escapeHtml(l.text)}</a>`);
  const html = [
    `<!doctype html><html><body style="font-family:sans-serif">`,
    ...(ownHtml !== undefined
      ? [`<div style="white-space:pre-wrap;border-left:6px solid ${colour};padding-left:8px">${ownHtml}</div>`]
      : [
          `<h2 style="border-left:6px solid ${colour};padding-left:8px">${escapeHtml(r.title)}</h2>`,
          `<p>${escapeHtml(r.headline)}</p>`,
          `<table>${rows.join("")}</table>`,
          buttons.length ? `<p>${buttons.join("")}</p>` : "",
        ]),
    `<p style="color:#6b7280;font-size:small">${escapeHtml(event.org.name)} · Watchpost`,
    unsubscribe ? ` · <a href="${escapeHtml(unsubscribe)}">Unsubscribe</a>` : "",
    `</p></body></html>`,
  ].join("");
  // One thread per alert incarnation in mail clients: every message references the same id.
  const thread = `<${createHash("sha256").update(event.dedupKey).digest("hex").slice(0, 32)}@watchpost.alerts>`;
  return {
    from: smtp.from,
    to: typeof config.to === "string" ? [config.to] : config.to,
    subject: template?.render("title", "plain") ?? `[Watchpost] ${r.title}`,
    text,
    html,
    headers: {
      "Auto-Submitted": "auto-generated",
      "X-Watchpost-Event": event.kind,
      References: thread,
      ...(unsubscribe ? { "List-Unsubscribe": `<${unsubscribe}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" } : {}),
    },
  };
}

/** Errors without an SMTP reply: these mean our envelope or settings are wrong, so retrying cannot help. */
const permanentCodes = new Set(["EENVELOPE", "ECONFIG", "ENOAUTH", "EMAXRECIPIENTS"]);

function smtpError(err: unknown, smtp: SmtpSettings): ChannelError {
  const e = err as Error & { code?: string; responseCode?: number; response?: string; permanent?: boolean };
  const permanent = e.permanent ?? permanentCodes.has(e.code ?? "");
  return new ChannelError(`SMTP ${smtp.host}:${smtp.port}: ${cutBody(e.message)}`, {
    permanent,
    status: e.responseCode,
    body: e.response ? cutBody(e.response) : undefined,
  });
}

export const email: Channel<EmailConfig> = {
  type: "email",
  configSchema: emailConfig,
  secretFields: [],
  async send(event, config, ctx, template) {
    const smtp = ctx.smtp;
    if (!smtp) throw new ChannelError("email is not configured on this deployment (no SMTP settings)", { permanent: true });
    const transport = ctx.createSmtpTransport(smtp, ctx.timeoutMs);
    try {
      const info = await transport.sendMail(emailMessage(event, config, smtp, template));
      const rejected = info.rejected.map(String);
      return {
        status: Number.parseInt(info.response, 10) || undefined,
        providerId: info.messageId,
        detail: rejected.length ? `refused by the server: ${rejected.join(", ")}` : undefined,
      };
    } catch (err) {
      throw smtpError(err, smtp);
    } finally {
      transport.close();
    }
  },
};
