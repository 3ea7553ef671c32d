import { WebhookPayload } from "../../../schemas/alerting/webhook-payload.ts";
import type { AlertEvent, BoundTemplate } from "../types.ts";

export { WebhookPayload };

/** With a template, `message` holds its rendered title and body as plain strings (JSON.stringify escapes them). */
export function toWebhookPayload(event: AlertEvent, template?: BoundTemplate): WebhookPayload {
  const title = template?.render("title", "plain");
  const body = template?.render("body", "plain");
  return {
    version: 1,
    id: event.idempotencyKey,
    kind: event.kind,
    dedup_key: event.dedupKey,
    occurred_at: event.occurredAt,
    started_at: event.startedAt,
    org: { id: event.org.id, name: event.org.name },
    rule: { id: event.rule.id, name: event.rule.name },
    // Field by field, so nothing the caller happened to attach leaks into a customer's endpoint.
    monitor: { id: event.monitor.id, name: event.monitor.name, type: event.monitor.type, ...(event.monitor.target ? { target: event.monitor.target } : {}) },
    region: event.region,
    region_name: event.regionName,
    ...(event.closed ? { closed: event.closed } : {}),
    status: event.status,
    condition: event.condition,
    result: {
      duration_ms: event.result.duration_ms,
      ...(event.result.error ? { error: event.result.error } : {}),
      ...(event.result.data ? { data: event.result.data } : {}),
    },
    links: {
      ...(event.links.monitor ? { monitor: event.links.monitor } : {}),
      ...(event.links.ackUrl ? { acknowledge: event.links.ackUrl } : {}),
    },
    ...(title !== undefined || body !== undefined ? { message: { ...(title !== undefined ? { title } : {}), ...(body !== undefined ? { body } : {}) } } : {}),
  };
}
