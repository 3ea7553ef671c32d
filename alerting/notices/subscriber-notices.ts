import { ChannelError, type ChannelContext } from "../channels/types.ts";
import { request } from "../channels/http.ts";
import { standardWebhookHeaders } from "../channels/webhook/sign.ts";
import { type Mailer, mailFailure } from "../../core/mail/mailer.ts";
import { nextAttempt } from "../../core/retry.ts";
import { type OutboxLoop, startOutboxLoop } from "../outbox/outbox-loop.ts";
import { findIncident, type IncidentRow, type IncidentUpdateRow, updatesFor } from "../../db/queries/incidents.ts";
import { findPageById, type StatusPageRow } from "../../db/queries/status-pages.ts";
import { claimSubscriberDeliveries, markSubscriberDelivery, type NoticeKind, type SubscriberDeliveryRow } from "../../db/queries/subscriber-deliveries.ts";
import { findSubscriberById, type SubscriberRow } from "../../db/queries/subscribers.ts";
import { escapeHtml } from "../../domain/status-pages/html.ts";
import { type MailCtx, subscriberWebhookSecrets, subscriberWebhookUrl, unsubscribeHeaders, unsubscribeUrl } from "../../domain/status-pages/subscribers.ts";

type IncidentNotice = NoticeKind;

export interface NotifyCtx extends MailCtx {
  /** The transport notices go out by (SMTP, or the log without SMTP_HOST). */
  mailer: Mailer;
  /** Outbound HTTP for webhook subscribers (net guard, timeout, error classification). */
  channelCtx: ChannelContext;
}

export interface DispatchOptions {
  limit?: number;
  /** How long a claimed notice is ours before another process may send it. */
  leaseMs?: number;
  maxAttempts?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
}

const SUBJECT: Record<IncidentNotice, string> = { created: "New incident", updated: "Update", resolved: "Resolved" };

function emailFor(n: NotifyCtx, kind: IncidentNotice, incident: IncidentRow, update: IncidentUpdateRow, page: StatusPageRow, sub: SubscriberRow) {
  const pageUrl = `${n.baseUrl}/status/${page.slug}`;
  const unsubscribe = unsubscribeUrl(n, sub);
  const text = [
    `${page.name}: ${incident.title}`,
    `Status: ${update.status} · Impact: ${incident.impact}`,
    "",
    update.message,
    "",
    `Status page: ${pageUrl}`,
    `Unsubscribe: ${unsubscribe}`,
  ].join("\n");
  const html = `<p><strong>${escapeHtml(page.name)}: ${escapeHtml(incident.title)}</strong></p>
<p>Status: ${escapeHtml(update.status)} · Impact: ${escapeHtml(incident.impact)}</p>
<p>${escapeHtml(update.message).replaceAll("\n", "<br>")}</p>
<p><a href="${escapeHtml(pageUrl)}">View the status page</a> · <a href="${escapeHtml(unsubscribe)}">Unsubscribe</a></p>`;
  return { to: sub.email!, subject: `[${page.name}] ${SUBJECT[kind]}: ${incident.title}`, text, html, headers: unsubscribeHeaders(unsubscribe) };
}

/** An SMTP failure, as a ChannelError saying whether a retry can help. */
function mailError(err: unknown): ChannelError {
  const f = mailFailure(err);
  return new ChannelError(f.message, { permanent: f.permanent, status: f.status });
}

/** Sends one notice; throws a ChannelError saying whether a retry can help. */
async function sendNotice(n: NotifyCtx, d: SubscriberDeliveryRow): Promise<void> {
  const sub = await findSubscriberById(n.sql, d.subscriber_id);
  const incident = await findIncident(n.sql, d.org_id, d.incident_id);
  const update = (await updatesFor(n.sql, d.org_id, [d.incident_id])).find((u) => u.id === d.update_id);
  const page = sub ? await findPageById(n.sql, sub.page_id) : undefined;
  if (!sub || !incident || !update || !page) throw new ChannelError("the subscription, page or incident no longer exists", { permanent: true });
  if (page.suspended) throw new ChannelError("the status page is suspended", { permanent: true });
  if (sub.kind === "email") {
    try {
      await n.mailer.send(emailFor(n, d.kind, incident, update, page, sub));
    } catch (err) {
      throw mailError(err);
    }
    return;
  }
  const body = JSON.stringify({
    type: `incident.${d.kind}`,
    page: { id: page.id, name: page.name, url: `${n.baseUrl}/status/${page.slug}` },
    incident: { id: incident.id, title: incident.title, impact: incident.impact, status: incident.status, created_at: incident.created_at, resolved_at: incident.resolved_at },
    update: { status: update.status, message: update.message, created_at: update.created_at },
    unsubscribe_url: unsubscribeUrl(n, sub),
  });
  // Signed the Standard Webhooks way with the subscription's secret(s); the delivery id is the same on every retry.
  const signed = standardWebhookHeaders(d.id, n.channelCtx.clock.now(), body, subscriberWebhookSecrets(n.box, sub));
  await request(n.channelCtx, "Status-page webhook", subscriberWebhookUrl(n.box, sub)!, { body, headers: { "content-type": "application/json", ...signed } });
}

/**
 * Sends the due incident notices (rows written with the incident change): claimed with SKIP LOCKED,
 * one attempt each; a retryable failure comes back after a backoff, a permanent one or the last
 * attempt is marked failed. Returns how many were claimed.
 */
async function runSubscriberDeliveries(n: NotifyCtx, o: DispatchOptions = {}): Promise<number> {
  const maxAttempts = o.maxAttempts ?? 6;
  const claimed = await claimSubscriberDeliveries(n.sql, o.limit ?? 50, o.leaseMs ?? 60_000);
  await Promise.all(
    claimed.map(async (d) => {
      const log = { op: "status-pages.notify", delivery: d.id, incidentId: d.incident_id, subscriberId: d.subscriber_id, kind: d.kind, attempt: d.attempts };
      try {
        await sendNotice(n, d);
        await markSubscriberDelivery(n.sql, d.id, { status: "sent" });
        n.log.info(log, "subscriber notified");
      } catch (err) {
        const e = err instanceof ChannelError ? err : new ChannelError(`unexpected error: ${(err as Error)?.message ?? String(err)}`, { permanent: false });
        const next = nextAttempt(d.attempts, e, { attempts: maxAttempts, baseMs: o.retryBaseMs ?? 10_000, maxMs: o.retryMaxMs ?? 600_000 });
        const giveUp = next.giveUp;
        await markSubscriberDelivery(n.sql, d.id, next.giveUp ? { status: "failed", error: e.message } : { status: "pending", error: e.message, retryInMs: next.delayMs });
        n.log.warn({ ...log, permanent: e.permanent, giveUp, err: e.message }, "subscriber notification failed");
      }
    }),
  );
  return claimed.length;
}

/**
 * The notice dispatcher of the alerting role: woken by NOTIFY when notices are written (by any
 * process), and every `pollMs` for retries. Several processes may run it.
 */
export function startSubscriberDispatcher(n: NotifyCtx, o: DispatchOptions & { pollMs?: number } = {}): Promise<OutboxLoop> {
  return startOutboxLoop({ sql: n.sql, channel: "wp_subscriber_deliveries", op: "status-pages.notify", log: n.log, pollMs: o.pollMs ?? 5_000, pass: () => runSubscriberDeliveries(n, o) });
}
