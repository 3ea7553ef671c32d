import type { ReportDetails } from "../../../domain/reports/service.ts";

export function toReportView(r: ReportDetails) {
  return {
    id: r.id,
    name: r.name,
    scope: r.scope,
    status_page_id: r.status_page_id,
    frequency: r.frequency,
    day: r.day,
    send_time: r.send_time,
    timezone: r.timezone,
    recipients: r.recipient_states.map((s) => ({
      type: s.recipient.type,
      user_id: s.recipient.type === "member" ? s.recipient.user_id : null,
      email: s.email,
      unsubscribed: s.unsubscribed,
    })),
    enabled: r.enabled,
    next_send_at: r.next_send_at.toISOString(),
    last_sent_at: r.last_sent_at?.toISOString() ?? null,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}
