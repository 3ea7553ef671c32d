import type { HttpFetch } from "../../alerting/channels/types.ts";
import type { IncidentUpdateRow } from "../../db/queries/incidents.ts";
import { findPageById, type StatusPageRow } from "../../db/queries/status-pages.ts";
import { confirmedSubscribers, type SubscriberRow } from "../../db/queries/subscribers.ts";
import { escapeHtml } from "../status-pages/html.ts";
import { type MailCtx, unsubscribeHeaders, unsubscribeUrl } from "../status-pages/subscribers.ts";
import type { IncidentWithUpdates } from "./service.ts";

export type IncidentNotice = "created" | "updated" | "resolved";

export interface NotifyCtx extends MailCtx {
  fetch: HttpFetch;
  timeoutMs?: number;
}

const SUBJECT: Record<IncidentNotice, string> = { created: "New incident", updated: "Update", resolved: "Resolved" };

export interface NotifyOutcome {
  emails: number;
  webhooks: number;
  failures: { subscriber_id: string; error: string }[];
}

function emailFor(n: NotifyCtx, kind: IncidentNotice, incident: IncidentWithUpdates, latest: IncidentUpdateRow, page: StatusPageRow, sub: SubscriberRow) {
  const pageUrl = `${n.baseUrl}/status/${page.slug}`;
  const unsubscribe = unsubscribeUrl(n, sub);
  const text = [
    `${page.name}: ${incident.title}`,
    `Status: ${latest.status} · Impact: ${incident.impact}`,
    "",
    latest.message,
    "",
    `Status page: ${pageUrl}`,
    `Unsubscribe: ${unsubscribe}`,
  ].join("\n");
  const html = `<p><strong>${escapeHtml(page.name)}: ${escapeHtml(incident.title)}</strong></p>
<p>Status: ${escapeHtml(latest.status)} · Impact: ${escapeHtml(incident.impact)}</p>
<p>${escapeHtml(latest.message).replaceAll("\n", "<br>")}</p>
<p><a href="${escapeHtml(pageUrl)}">View the status page</a> · <a href="${escapeHtml(unsubscribe)}">Unsubscribe</a></p>`;
  return { to: sub.email!, subject: `[${page.name}] ${SUBJECT[kind]}: ${incident.title}`, text, html, headers: unsubscribeHeaders(unsubscribe) };
}

/**
 * Tells every confirmed subscriber of the incident's pages (one message per address or URL).
 * Runs after the change is committed; failures are logged and returned, never thrown.
 */
export async function notifySubscribers(n: NotifyCtx, kind: IncidentNotice, incident: IncidentWithUpdates): Promise<NotifyOutcome> {
  const outcome: NotifyOutcome = { emails: 0, webhooks: 0, failures: [] };
  const latest = incident.updates[0];
  if (!latest) return outcome;
  const subscribers = await confirmedSubscribers(n.sql, incident.org_id, incident.page_ids);
  const pages = new Map<string, StatusPageRow | undefined>();
  const seen = new Set<string>();
  for (const sub of subscribers) {
    const key = sub.kind === "email" ? `e:${sub.email!.toLowerCase()}` : `w:${sub.webhook_url}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (!pages.has(sub.page_id)) pages.set(sub.page_id, await findPageById(n.sql, sub.page_id));
    const page = pages.get(sub.page_id);
    if (!page || page.suspended) continue;
    try {
      if (sub.kind === "email") {
        await n.mailer.send(emailFor(n, kind, incident, latest, page, sub));
        outcome.emails++;
      } else {
        const body = JSON.stringify({
          type: `incident.${kind}`,
          page: { id: page.id, name: page.name, url: `${n.baseUrl}/status/${page.slug}` },
          incident: { id: incident.id, title: incident.title, impact: incident.impact, status: incident.status, created_at: incident.created_at, resolved_at: incident.resolved_at },
          update: { status: latest.status, message: latest.message, created_at: latest.created_at },
          unsubscribe_url: unsubscribeUrl(n, sub),
        });
        const res = await n.fetch(sub.webhook_url!, {
          method: "POST",
          headers: { "content-type": "application/json", "user-agent": "Watchpost-StatusPage/1" },
          body,
          redirect: "manual",
          signal: AbortSignal.timeout(n.timeoutMs ?? 10_000),
        });
        if (res.status >= 300) throw new Error(`HTTP ${res.status}`);
        outcome.webhooks++;
      }
    } catch (err) {
      const error = (err as Error).message;
      outcome.failures.push({ subscriber_id: sub.id, error });
      n.log.warn({ op: "status-pages.notify", subscriberId: sub.id, incidentId: incident.id, err: error }, "subscriber notification failed");
    }
  }
  n.log.info({ op: "status-pages.notify", incidentId: incident.id, kind, emails: outcome.emails, webhooks: outcome.webhooks, failed: outcome.failures.length }, "subscribers notified");
  return outcome;
}
