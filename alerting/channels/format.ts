import type { AlertEvent, AlertEventKind } from "./types.ts";

/** Provider-neutral rendering of an event; each chat/email channel lays these pieces out its own way. */
export interface RenderedEvent {
  /** e.g. "🔴 Alert: Checkout API" */
  title: string;
  /** One sentence under the title, e.g. "status is down in eu-west". */
  headline: string;
  /** Plain one-line fallback for notifications and previews. */
  summary: string;
  /** 0xRRGGBB by kind (and by status for an alert). */
  color: number;
  facts: { name: string; value: string }[];
  links: { text: string; url: string }[];
}

const heading: Record<AlertEventKind, string> = {
  alert: "🔴 Alert",
  escalation: "🔺 Escalation",
  reminder: "🔁 Still alerting",
  recovery: "✅ Recovered",
  acknowledgement: "👀 Acknowledged",
  test: "🧪 Test notification",
};

const kindColor: Record<AlertEventKind, number> = {
  alert: 0xd93f3f,
  escalation: 0x9b1c1c,
  reminder: 0xe07b39,
  recovery: 0x2e9e5b,
  acknowledgement: 0x3b82f6,
  test: 0x6b7280,
};
const degradedColor = 0xe8a317;

/** True for the kinds that mean "something is wrong right now". */
const isProblem = (kind: AlertEventKind) => kind === "alert" || kind === "escalation" || kind === "reminder";

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const [d, h, m, sec] = [Math.floor(s / 86400), Math.floor(s / 3600) % 24, Math.floor(s / 60) % 60, s % 60];
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m ${sec}s`;
  return `${sec}s`;
}

/** "2026-11-22 04:42:10 UTC": unambiguous for readers in any timezone. */
export const formatTime = (iso: string) => `${iso.replace("T", " ").replace(/\.\d+Z$|Z$/, "")} UTC`;

export function renderEvent(event: AlertEvent): RenderedEvent {
  const { kind, monitor } = event;
  const closed = kind === "recovery" && event.closed === "location_removed";
  const title = kind === "test" ? `${heading.test} from Watchpost` : `${closed ? "⚪ Closed" : heading[kind]}: ${monitor.name}`;
  const headline =
    kind === "test"
      ? "Sent to check that this channel works; nothing is alerting."
      : closed
        ? `No longer checked from ${event.regionName}: the alert there is closed, not recovered`
        : `${kind === "recovery" ? "Cleared: " : ""}${event.condition} in ${event.regionName}`;
  const alertingFor = formatDuration(Date.parse(event.occurredAt) - Date.parse(event.startedAt));
  const facts = [
    { name: "Status", value: event.status.toUpperCase() },
    { name: "Rule", value: event.rule.name },
    { name: "Region", value: event.regionName },
    ...(monitor.target ? [{ name: "Target", value: clip(monitor.target, 500) }] : []),
    { name: "Response time", value: `${Math.round(event.result.duration_ms)} ms` },
    // Errors can carry a response body; a page needs the gist, the dashboard has the rest.
    ...(event.result.error ? [{ name: "Error", value: clip(event.result.error, 1000) }] : []),
    { name: "Started", value: formatTime(event.startedAt) },
    { name: kind === "recovery" ? "Was alerting for" : "Alerting for", value: alertingFor },
  ];
  const links = [
    ...(event.links.monitor ? [{ text: "View monitor", url: event.links.monitor }] : []),
    ...(event.links.ackUrl && isProblem(kind) ? [{ text: "Acknowledge", url: event.links.ackUrl }] : []),
  ];
  const color = kind === "alert" && event.status === "degraded" ? degradedColor : kindColor[kind];
  return { title, headline, summary: `${title}: ${headline}`, color, facts, links };
}

export const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** Cuts to a provider's field limit, marking the cut. */
export const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
