import type { SecretBox } from "../../core/crypto/secrets.ts";
import type { Sql } from "../../db/client.ts";
import { memberEmails, type ReportRecipient, type ReportRow, unsubscribedEmails } from "../../db/queries/reports.ts";
import { enqueueMail } from "../mail/enqueue.ts";
import { computeReportData } from "./data.ts";
import { renderReport } from "./render.ts";
import type { ReportPeriod } from "./schedule.ts";
import { REPORT_UNSUBSCRIBE_TTL_SECONDS, signReportUnsubscribe } from "./tokens.ts";

export interface RecipientState {
  recipient: ReportRecipient;
  /** The address mail goes to; null for a member who left the organisation. */
  email: string | null;
  unsubscribed: boolean;
}

export const normaliseEmail = (e: string) => e.trim().toLowerCase();

/** Each recipient with the address it stands for and whether that address unsubscribed from this report. */
export async function recipientStates(sql: Sql, report: Pick<ReportRow, "id" | "org_id" | "recipients">): Promise<RecipientState[]> {
  const members = report.recipients.flatMap((r) => (r.type === "member" ? [r.user_id] : []));
  const [emails, unsubscribed] = await Promise.all([memberEmails(sql, report.org_id, members), unsubscribedEmails(sql, report.id)]);
  return report.recipients.map((recipient) => {
    const raw = recipient.type === "member" ? (emails.get(recipient.user_id) ?? null) : recipient.email;
    const email = raw === null ? null : normaliseEmail(raw);
    return { recipient, email, unsubscribed: email !== null && unsubscribed.has(email) };
  });
}

/** The addresses a scheduled report goes to: each once, members who left and unsubscribed addresses left out. */
export async function deliverableEmails(sql: Sql, report: Pick<ReportRow, "id" | "org_id" | "recipients">): Promise<string[]> {
  const states = await recipientStates(sql, report);
  return [...new Set(states.flatMap((s) => (s.email !== null && !s.unsubscribed ? [s.email] : [])))];
}

export interface ReportMailDeps {
  box: SecretBox;
  /** PUBLIC_BASE_URL: the unsubscribe link and the dashboard link point there. */
  baseUrl: string;
}

/**
 * Queues the report of one period to each address in the mail outbox (in the caller's transaction);
 * every message carries its own signed one-click unsubscribe link (RFC 8058 headers too).
 */
export async function enqueueReportMail(tx: Sql, d: ReportMailDeps, report: ReportRow, period: ReportPeriod, to: readonly string[], preview = false): Promise<number> {
  if (to.length === 0) return 0;
  const data = await computeReportData(tx, report, period);
  const exp = Math.floor(Date.now() / 1000) + REPORT_UNSUBSCRIBE_TTL_SECONDS;
  for (const email of to) {
    const unsubscribe = `${d.baseUrl}/api/v1/reports/unsubscribe?token=${encodeURIComponent(signReportUnsubscribe(d.box, { reportId: report.id, email, exp }))}`;
    const mail = renderReport(data, { unsubscribe, dashboard: `${d.baseUrl}/` }, preview);
    await enqueueMail(tx, {
      kind: "report",
      orgId: report.org_id,
      to: email,
      ...mail,
      headers: { "List-Unsubscribe": `<${unsubscribe}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
    });
  }
  return to.length;
}
