import { clip, renderEvent } from "../format.ts";
import { parseJson, postJson } from "../http.ts";
import type { AlertEvent, AlertEventKind, BoundTemplate, Channel, ChannelContext } from "../types.ts";
import { type PagerdutyConfig, pagerdutySpec } from "./pagerduty-schema.ts";

export { type PagerdutyConfig };

/** Paging follows our alert state: the incident is keyed on dedupKey, so reminders and escalations fold into it. */
const actions: Record<AlertEventKind, "trigger" | "acknowledge" | "resolve"> = {
  alert: "trigger",
  escalation: "trigger",
  reminder: "trigger",
  test: "trigger",
  acknowledgement: "acknowledge",
  recovery: "resolve",
};

function pagerdutyPayload(event: AlertEvent, config: PagerdutyConfig, ctx: ChannelContext, template?: BoundTemplate) {
  const event_action = actions[event.kind];
  const base = { routing_key: config.routing_key, event_action, dedup_key: event.dedupKey };
  if (event_action !== "trigger") return base;
  const r = renderEvent(event);
  const severity = event.kind === "test" ? "info" : event.status === "degraded" ? "warning" : (config.severity ?? "critical");
  return {
    ...base,
    payload: {
      summary: clip(template?.render("title", "plain") ?? `${r.title}: ${r.headline}`, 1024),
      source: event.monitor.target ?? event.monitor.name,
      severity,
      timestamp: event.occurredAt,
      component: event.monitor.name,
      group: event.regionName,
      class: event.monitor.type,
      custom_details: {
        ...(template?.render("body", "plain") !== undefined ? { message: template.render("body", "plain") } : {}),
        kind: event.kind,
        rule: event.rule.name,
        condition: event.condition,
        status: event.status,
        region: event.regionName,
        organisation: event.org.name,
        started_at: event.startedAt,
        duration_ms: event.result.duration_ms,
        ...(event.result.error ? { error: event.result.error } : {}),
        ...(event.result.data ? { data: event.result.data } : {}),
      },
    },
    client: "Watchpost",
    client_url: event.links.monitor ?? ctx.publicBaseUrl,
    links: r.links.map((l) => ({ href: l.url, text: l.text })),
  };
}

export const pagerduty: Channel<PagerdutyConfig> = {
  type: "pagerduty",
  configSchema: pagerdutySpec.config,
  secretFields: pagerdutySpec.secretFields,
  async send(event, config, ctx, template) {
    const res = await postJson(ctx, "PagerDuty Events API", ctx.endpoints.pagerduty, pagerdutyPayload(event, config, ctx, template));
    const dedup = (parseJson(res.text) as { dedup_key?: string } | undefined)?.dedup_key;
    return { status: res.status, providerId: dedup ?? event.dedupKey };
  },
};
