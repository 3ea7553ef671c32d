import { type Static, Type } from "@sinclair/typebox";

/**
 * A channel's own message template (Mustache, logic-less): the title and the body of what the
 * channel sends, in place of Watchpost's default layout. Browser-safe: the API validates with it,
 * the dashboard lists the variables from it, docs/channels.md documents the same list.
 */
export const MessageTemplate = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: "Mustache template of the message title (email subject, card heading); unset keeps Watchpost's title" })),
    body: Type.Optional(Type.String({ minLength: 1, maxLength: 5000, description: "Mustache template of the message body; unset keeps Watchpost's layout" })),
  },
  { additionalProperties: false, description: "Message template: {{variable}} placeholders from the documented list (docs/channels.md), sections {{#error}}…{{/error}} for optional values" },
);
export type MessageTemplate = Static<typeof MessageTemplate>;

/**
 * How a rendered value is escaped where the channel puts it: `html` (email body, Telegram's HTML
 * mode), `slack` (Slack mrkdwn), `markdown` (Discord, Teams), `plain` (subjects, JSON fields: the
 * JSON encoder escapes, nothing else must).
 */
export type MessageFormat = "html" | "slack" | "markdown" | "plain";
export const messageFormats: readonly MessageFormat[] = ["html", "slack", "markdown", "plain"];

/** The template variables: name, meaning, and the value the preview's sample alert gives it. */
export interface TemplateVariable {
  name: string;
  description: string;
  sample: string;
}

export const templateVariables: readonly TemplateVariable[] = [
  { name: "kind", description: "alert, escalation, reminder, recovery, acknowledgement or test", sample: "alert" },
  { name: "kind_label", description: "The kind as a word for people: Triggered, Escalated, Reminder, Resolved, Acknowledged, Test", sample: "Triggered" },
  { name: "monitor.id", description: "Monitor id", sample: "mon_01HSAMPLE" },
  { name: "monitor.name", description: "Monitor name", sample: "Checkout API" },
  { name: "monitor.type", description: "Check type: http, tcp, dns, browser, heartbeat…", sample: "http" },
  { name: "monitor.target", description: "What the monitor checks (URL, host:port…); empty for heartbeats", sample: "https://shop.example.com/api/health" },
  { name: "monitor.url", description: "Link to the monitor in the dashboard", sample: "https://watchpost.example.com/monitors/mon_01HSAMPLE" },
  { name: "region", description: "Where the check ran: a region's id, a runner's id (run_…), heartbeat or none", sample: "eu-west" },
  { name: "region_name", description: "Where the check ran, as people know it: the region's id, or runner and its name", sample: "eu-west" },
  { name: "closed", description: "location_removed on a recovery that closes the alert because the monitor no longer checks from there; empty otherwise", sample: "" },
  { name: "status", description: "Check status: up, down, degraded, timeout", sample: "down" },
  { name: "error", description: "The check's error message, cut to 1000 characters; empty when none", sample: "HTTP 503 Service Unavailable" },
  { name: "response_time_ms", description: "Response time of the check that decided, in milliseconds", sample: "2412" },
  { name: "condition", description: "The rule's condition in words", sample: "status is down or timeout" },
  { name: "rule.id", description: "Alert rule id", sample: "arl_01HSAMPLE" },
  { name: "rule.name", description: "Alert rule name", sample: "Checkout down" },
  { name: "org.name", description: "Organisation name", sample: "Acme" },
  { name: "time", description: "When this happened, in the channel's time zone (2026-11-22 05:42:10 CET)", sample: "2026-11-22 05:42:10 CET" },
  { name: "time_iso", description: "When this happened, ISO 8601 in UTC", sample: "2026-11-22T04:42:10.000Z" },
  { name: "started_at", description: "When the alert started, in the channel's time zone", sample: "2026-11-22 05:37:10 CET" },
  { name: "alerting_for", description: "How long the alert has been (or was) firing: 5m 0s, 2h 10m", sample: "5m 0s" },
  { name: "timezone", description: "The channel's time zone", sample: "Europe/Berlin" },
  { name: "links.monitor", description: "Link to the monitor in the dashboard (same as monitor.url)", sample: "https://watchpost.example.com/monitors/mon_01HSAMPLE" },
  { name: "links.acknowledge", description: "One-click acknowledge link; empty when the event cannot be acknowledged", sample: "https://watchpost.example.com/ack/sample-token" },
  { name: "links.dashboard", description: "The dashboard's address", sample: "https://watchpost.example.com" },
];

export const templateVariableNames: ReadonlySet<string> = new Set(templateVariables.map((v) => v.name));
