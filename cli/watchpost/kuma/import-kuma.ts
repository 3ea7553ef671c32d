import { Value } from "@sinclair/typebox/value";
import { isSecretHeader } from "../../../schemas/checks/secret-headers.ts";
import { CONFIG_FILE_VERSION, channelEntrySchemas, monitorEntrySchemas } from "../../../schemas/monitoring-config.ts";
import type { CheckType } from "../../../schemas/check-types.ts";
import type { DesiredChannel, DesiredMonitor, DesiredRule, DesiredState } from "../config/load.ts";
import { KUMA_CHANNELS } from "./convert-notification.ts";
import { KUMA_CONVERTERS, REFUSED_TYPES } from "./convert-monitor.ts";
import type { KumaBackup, KumaMonitor } from "./kuma-types.ts";

export interface KumaImportReport {
  /** Alert rules made for monitors that notified converted channels (down or timeout, after Kuma's retries). */
  rules: { kuma_id: number; key: string; monitor: string; channels: string[] }[];
  channels: { kuma_id: number; name: string; kuma_type: string; key: string; type: string }[];
  converted: { kuma_id: number; name: string; kuma_type: string; key: string; type: string; notes: string[] }[];
  skipped: { kuma_id: number; name: string; kuma_type: string; reason: string }[];
  /** Notifications not converted into channels, with the reason. */
  notifications: { kuma_id: number; name: string; kuma_type: string; reason: string }[];
  /** Environment variables the file references in place of secrets Kuma stored (passwords, secret headers). */
  secret_refs: string[];
}

const slug = (name: string) =>
  name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[^a-z0-9]+|-+$/g, "")
    .slice(0, 48) || "monitor";

const flag = (v: unknown) => v === true || v === 1 || v === "1";
const TAG_MAX = 64;

/** Turns a Kuma backup into a config file and a report of what was converted, approximated and refused. */
export function convertKumaBackup(backup: KumaBackup): { state: DesiredState; report: KumaImportReport } {
  const report: KumaImportReport = { rules: [], channels: [], converted: [], skipped: [], notifications: [], secret_refs: [] };
  const rules: DesiredRule[] = [];
  const channels = convertNotifications(backup, report);
  const channelKeyOf = new Map(report.channels.map((c) => [c.kuma_id, c.key]));
  const monitors: DesiredMonitor[] = [];
  const used = new Set<string>();
  const uniqueKey = (base: string) => {
    let k = base;
    for (let n = 2; used.has(k); n++) k = `${base}-${n}`;
    used.add(k);
    return k;
  };
  const groups = new Map(backup.monitorList.filter((m) => m.type === "group").map((m) => [m.id, m.name]));
  const ordered = [...backup.monitorList].sort((a, b) => a.id - b.id);

  for (const m of ordered) {
    const convert = Object.hasOwn(KUMA_CONVERTERS, m.type) ? KUMA_CONVERTERS[m.type] : undefined;
    if (!convert) {
      report.skipped.push({ kuma_id: m.id, name: m.name, kuma_type: m.type, reason: REFUSED_TYPES[m.type] ?? `Kuma monitor type "${m.type}" has no Watchpost equivalent` });
      continue;
    }
    if (flag(m.upsideDown)) {
      report.skipped.push({ kuma_id: m.id, name: m.name, kuma_type: m.type, reason: "upside-down mode (up when the check fails) has no equivalent" });
      continue;
    }
    const key = uniqueKey(slug(m.name));
    const secretHeaders: string[] = [];
    const result = convert(m, key, (h) => {
      const secret = isSecretHeader(h);
      if (secret) secretHeaders.push(h);
      return secret;
    });
    if (!result.ok) {
      used.delete(key);
      report.skipped.push({ kuma_id: m.id, name: m.name, kuma_type: m.type, reason: result.reason });
      continue;
    }
    const notes = [...result.notes, ...settingNotes(m, channelKeyOf)];
    const entry: DesiredMonitor = { key, name: m.name.slice(0, 200), ...result.monitor, ...common(m, result.monitor.type), ...tagsOf(m, groups) };
    const issues = [...Value.Errors(monitorEntrySchemas[entry.type as CheckType], entry)].map((e) => `${e.path}: ${e.message}`);
    if (issues.length) {
      used.delete(key);
      report.skipped.push({ kuma_id: m.id, name: m.name, kuma_type: m.type, reason: `its settings do not fit Watchpost's ${entry.type} check: ${issues.slice(0, 3).join("; ")}` });
      continue;
    }
    monitors.push(entry);
    const rule = ruleFor(m, key, channelKeyOf);
    if (rule) {
      rules.push(rule);
      report.rules.push({ kuma_id: m.id, key: rule.key, monitor: key, channels: (rule.channels ?? []).map((c) => c.channel) });
    }
    collectRefs(entry.config, report.secret_refs);
    report.converted.push({ kuma_id: m.id, name: m.name, kuma_type: m.type, key, type: entry.type, notes });
    if (result.extra) {
      const extraKey = uniqueKey(result.extra.key);
      const extra: DesiredMonitor = { ...result.extra, key: extraKey, ...common(m, "ssl"), ...tagsOf(m, groups) };
      monitors.push(extra);
      report.converted.push({ kuma_id: m.id, name: extra.name, kuma_type: `${m.type} (certificate expiry)`, key: extraKey, type: "ssl", notes: ["Kuma's certificate expiry notification became an ssl monitor (warns 14 days ahead)"] });
    }
  }

  return { state: { version: CONFIG_FILE_VERSION, monitors, ...(channels.length ? { channels } : {}), ...(rules.length ? { rules } : {}) }, report };
}

/** Interval and timeout: Kuma's are seconds; Watchpost's timeout is milliseconds and at most the interval. */
function common(m: KumaMonitor, type: string): Partial<DesiredMonitor> {
  if (type === "heartbeat") return flag(m.active) || m.active === undefined ? {} : { paused: true };
  const interval = Math.min(86_400, Math.max(10, Math.round(m.interval ?? 60)));
  const timeoutS = m.timeout && m.timeout > 0 ? m.timeout : null;
  return {
    interval_seconds: interval,
    ...(timeoutS ? { timeout_ms: Math.max(100, Math.min(120_000, interval * 1000, Math.round(timeoutS * 1000))) } : {}),
    ...(m.active === undefined || flag(m.active) ? {} : { paused: true }),
  };
}

/** Kuma tags (name, or name:value) and the monitor's group as tags. */
function tagsOf(m: KumaMonitor, groups: Map<number, string>): Partial<DesiredMonitor> {
  const tags = new Set<string>();
  for (const t of m.tags ?? []) tags.add((t.value ? `${t.name}:${t.value}` : t.name).replaceAll(",", " ").slice(0, TAG_MAX));
  if (m.parent && groups.has(m.parent)) tags.add(groups.get(m.parent)!.replaceAll(",", " ").slice(0, TAG_MAX));
  const list = [...tags].filter((t) => t.trim()).slice(0, 31);
  return list.length ? { tags: list } : {};
}

const notifiedIds = (m: KumaMonitor) =>
  Object.entries(m.notificationIDList ?? {})
    .filter(([, on]) => on)
    .map(([id]) => Number(id));

/**
 * Kuma notifies a monitor's notifications when it goes down after its retries: the same as a rule on the
 * monitor for down or timeout, confirmed by retries + 1 consecutive failures, sending to the converted channels.
 */
function ruleFor(m: KumaMonitor, key: string, channelKeyOf: Map<number, string>): DesiredRule | null {
  const channels = notifiedIds(m).flatMap((id) => (channelKeyOf.has(id) ? [{ channel: channelKeyOf.get(id)! }] : []));
  if (!channels.length) return null;
  return {
    key: `${key.slice(0, 52)}-down`,
    name: `${m.name} down`.slice(0, 200),
    scope: { monitor: key },
    condition: { type: "status_change", to: ["down", "timeout"] },
    ...(m.maxretries && m.maxretries > 0 ? { confirmation: { consecutive_failures: Math.min(1000, m.maxretries + 1) } } : {}),
    channels,
  };
}

/** Kuma settings the conversion turned into something else, or could not. */
function settingNotes(m: KumaMonitor, channelKeyOf: Map<number, string>): string[] {
  const notes: string[] = [];
  const ids = notifiedIds(m);
  const converted = ids.filter((id) => channelKeyOf.has(id)).map((id) => channelKeyOf.get(id)!);
  const lost = ids.filter((id) => !channelKeyOf.has(id));
  if (converted.length) notes.push(`its notifications became a rule for down or timeout${m.maxretries ? ` after ${m.maxretries + 1} consecutive failures (retries ${m.maxretries} + 1)` : ""}, sending to ${converted.join(", ")}`);
  else if (m.maxretries && m.maxretries > 0) notes.push(`retries ${m.maxretries}: no notification of it was converted, so no rule carries them (set consecutive failures ${m.maxretries + 1} on the rule you add)`);
  if (lost.length) notes.push(`Kuma notification${lost.length === 1 ? "" : "s"} ${lost.join(", ")} not converted (see below): not in its rule`);
  return notes;
}

/** Kuma notifications as channels where a Watchpost channel type fits; the rest reported with the reason. */
function convertNotifications(backup: KumaBackup, report: KumaImportReport): DesiredChannel[] {
  const out: DesiredChannel[] = [];
  const used = new Set<string>();
  for (const n of [...(backup.notificationList ?? [])].sort((a, b) => a.id - b.id)) {
    let config: Record<string, unknown> = {};
    try {
      config = JSON.parse(n.config) as Record<string, unknown>;
    } catch {}
    const kind = String(config.type ?? "unknown");
    const refuse = (reason: string) => report.notifications.push({ kuma_id: n.id, name: n.name, kuma_type: kind, reason });
    const convert = Object.hasOwn(KUMA_CHANNELS, kind) ? KUMA_CHANNELS[kind]! : null;
    if (!convert) {
      refuse(`Kuma notification type "${kind}" has no Watchpost channel`);
      continue;
    }
    let key = slug(n.name);
    for (let i = 2; used.has(key); i++) key = `${slug(n.name)}-${i}`;
    const result = convert(config, key);
    if ("refused" in result) {
      refuse(result.refused);
      continue;
    }
    const entry: DesiredChannel = { key, name: n.name.slice(0, 200), type: result.type, config: result.config, ...(flag(n.active) || n.active === undefined ? {} : { enabled: false }) };
    const issues = [...Value.Errors(channelEntrySchemas[result.type], entry)].map((e) => `${e.path}: ${e.message}`);
    if (issues.length) {
      refuse(`its settings do not fit Watchpost's ${result.type} channel: ${issues.slice(0, 3).join("; ")}`);
      continue;
    }
    used.add(key);
    out.push(entry);
    collectRefs(entry.config, report.secret_refs);
    report.channels.push({ kuma_id: n.id, name: n.name, kuma_type: kind, key, type: result.type });
  }
  return out;
}

function collectRefs(value: unknown, out: string[]) {
  if (typeof value === "string") for (const [, name] of value.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) out.push(name!);
  else if (value && typeof value === "object") for (const v of Object.values(value)) collectRefs(v, out);
}
