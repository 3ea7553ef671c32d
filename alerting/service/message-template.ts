import Mustache from "mustache";
import type { ValidationIssue } from "../../core/errors.ts";
import type { AlertEvent, AlertEventKind } from "../engine/alert-event.ts";
import { type MessageFormat, type MessageTemplate, templateVariableNames } from "../../schemas/channels/message-template.ts";

/**
 * Message templates (Mustache, logic-less): validation on save, the variables an event gives, and
 * rendering with the escaping of the place the text lands. Channels get a BoundTemplate and only
 * place its output; the API's preview renders a sample event through the same code.
 */

// Templates are validated and few; Mustache's global parse cache would only grow with edits.
Mustache.templateCache = undefined;

type Part = keyof MessageTemplate;

/** Tag types a template may use: text, {{name}}, sections {{#x}} {{^x}} {{/x}} and comments. */
const refused: Record<string, string> = {
  "&": "unescaped output ({{{…}}} or {{&…}}) is not allowed: values are escaped for the channel",
  ">": "partials ({{>…}}) are not available",
  "=": "changing the delimiters ({{=…=}}) is not allowed",
};

type Span = [string, string, number, number, Span[]?, number?];

function spanIssues(spans: Span[], path: string, issues: ValidationIssue[]): void {
  for (const [type, value, start, , children] of spans) {
    if (type === "text" || type === "!") continue;
    if (refused[type]) issues.push({ path, message: `at ${start}: ${refused[type]}` });
    else if (!templateVariableNames.has(value)) issues.push({ path, message: `at ${start}: unknown variable "${value}" (see the variables in docs/channels.md)` });
    if (children) spanIssues(children, path, issues);
  }
}

/** Syntax errors and unknown variables, each naming the place; `prefix` is the body path, e.g. "body.template". */
export function templateIssues(template: MessageTemplate | null | undefined, prefix: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const part of ["title", "body"] as const) {
    const text = template?.[part];
    if (text === undefined) continue;
    const path = `${prefix}.${part}`;
    try {
      spanIssues(Mustache.parse(text) as unknown as Span[], path, issues);
    } catch (err) {
      issues.push({ path, message: `template syntax: ${(err as Error).message}` });
    }
  }
  return issues;
}

const kindLabel: Record<AlertEventKind, string> = {
  alert: "Triggered",
  escalation: "Escalated",
  reminder: "Reminder",
  recovery: "Resolved",
  acknowledgement: "Acknowledged",
  test: "Test",
};

/** The sample alert the preview renders: the documented sample values, for any kind. */
export function sampleEvent(kind: AlertEventKind, dashboardUrl: string): AlertEvent {
  const problem = isProblem(kind);
  return {
    kind,
    dedupKey: "preview",
    idempotencyKey: "preview",
    rule: { id: "arl_01HSAMPLE", name: "Checkout down" },
    monitor: { id: "mon_01HSAMPLE", name: "Checkout API", type: "http", target: "https://shop.example.com/api/health" },
    region: "eu-west",
    regionName: "eu-west",
    status: kind === "recovery" ? "up" : "down",
    condition: "status is down or timeout",
    result: kind === "recovery" ? { duration_ms: 182 } : { duration_ms: 2412, error: "HTTP 503 Service Unavailable" },
    startedAt: "2026-11-22T04:37:10.000Z",
    occurredAt: "2026-11-22T04:42:10.000Z",
    org: { id: "org_sample", name: "Acme" },
    links: { monitor: `${dashboardUrl}/monitors/mon_01HSAMPLE`, ...(problem ? { ackUrl: `${dashboardUrl}/alerts` } : {}) },
  };
}

const zoneFormatters = new Map<string, Intl.DateTimeFormat[]>();

/** en-GB names European zones (CET, BST), en-US American ones (EST, PDT); each gives GMT+n for the others. */
function formattersOf(timezone: string): Intl.DateTimeFormat[] {
  let f = zoneFormatters.get(timezone);
  if (!f) {
    const options: Intl.DateTimeFormatOptions = {
      timeZone: timezone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      timeZoneName: "short",
    };
    f = [new Intl.DateTimeFormat("en-GB", options), new Intl.DateTimeFormat("en-US", options)];
    zoneFormatters.set(timezone, f);
  }
  return f;
}

/** "2026-11-22 05:42:10 CET": the wall clock in `timezone` with the zone's abbreviation (or GMT+n when it has none). */
export function formatInZone(iso: string, timezone: string): string {
  const [gb, us] = formattersOf(timezone).map((f) => Object.fromEntries(f.formatToParts(new Date(iso)).map((p) => [p.type, p.value])));
  const zone = /^(GMT|UTC)[+-]/.test(gb!.timeZoneName ?? "") && !/^(GMT|UTC)[+-]/.test(us!.timeZoneName ?? "") ? us!.timeZoneName : gb!.timeZoneName;
  const p = gb!;
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second} ${zone}`;
}

function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const [d, h, m, sec] = [Math.floor(s / 86400), Math.floor(s / 3600) % 24, Math.floor(s / 60) % 60, s % 60];
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m ${sec}s`;
  return `${sec}s`;
}

const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

const isProblem = (kind: AlertEventKind) => kind === "alert" || kind === "escalation" || kind === "reminder";

/** The values of the documented variables (schemas/channels/message-template.ts) for one event. */
export function templateView(event: AlertEvent, timezone: string, dashboardUrl: string) {
  const monitorUrl = event.links.monitor ?? "";
  return {
    kind: event.kind,
    kind_label: kindLabel[event.kind],
    monitor: { id: event.monitor.id, name: event.monitor.name, type: event.monitor.type, target: clip(event.monitor.target ?? "", 500), url: monitorUrl },
    region: event.region,
    region_name: event.regionName,
    closed: event.closed ?? "",
    status: event.status,
    // Errors can carry a response body; a message needs the gist (as Watchpost's own layout cuts it).
    error: clip(event.result.error ?? "", 1000),
    response_time_ms: String(Math.round(event.result.duration_ms)),
    condition: event.condition,
    rule: { id: event.rule.id, name: event.rule.name },
    org: { name: event.org.name },
    time: formatInZone(event.occurredAt, timezone),
    time_iso: new Date(event.occurredAt).toISOString(),
    started_at: formatInZone(event.startedAt, timezone),
    alerting_for: duration(Date.parse(event.occurredAt) - Date.parse(event.startedAt)),
    timezone,
    links: { monitor: monitorUrl, acknowledge: event.links.ackUrl && isProblem(event.kind) ? event.links.ackUrl : "", dashboard: dashboardUrl },
  };
}

const ZWSP = "\u200B";

/** Escapers by format: a value can never open markup, a link or a mention where it lands. */
export const escapers: Record<MessageFormat, (value: string) => string> = {
  html: (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;"),
  // Slack has no backslash escape: &, < and > become entities (so no <!channel> or <url|link>), and a
  // zero-width space after each formatting character stops *bold*, _italic_, ~strike~ and `code`.
  slack: (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/[*_~`]/g, (c) => `${c}${ZWSP}`),
  // Backslash escapes (CommonMark, Discord) for the marks that open or close inline markup, links,
  // headings and quotes; URLs and dotted names stay readable and linkable.
  markdown: (s) => s.replace(/[\\`*_[\]~|<>#]/g, (c) => `\\${c}`),
  plain: (s) => s,
};

/** A channel's template with one event's values: renders a part in the given format, or undefined when the template has no such part. */
export interface BoundTemplate {
  render(part: Part, format: MessageFormat): string | undefined;
}

export interface TemplateSettings {
  template: MessageTemplate | null;
  timezone: string;
}

/** Undefined when the channel has no template: the channel then sends Watchpost's own layout. */
export function bindTemplate(event: AlertEvent, settings: TemplateSettings, dashboardUrl: string): BoundTemplate | undefined {
  const template = settings.template;
  if (!template || (template.title === undefined && template.body === undefined)) return undefined;
  const view = templateView(event, settings.timezone, dashboardUrl);
  return {
    render(part, format) {
      const text = template[part];
      if (text === undefined) return undefined;
      const escape = escapers[format];
      const out = Mustache.render(text, view, {}, { escape: (v: unknown) => escape(String(v)) });
      // A title is one line wherever it lands (a mail subject above all).
      return part === "title" ? out.replace(/\s*[\r\n]+\s*/g, " ").trim() : out;
    },
  };
}
