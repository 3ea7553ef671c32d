import type { paths } from "../../api/schema.gen";
import { hasRunTime, isMissedRun } from "../../components/run-time";

export type AlertTimeline = paths["/api/v1/alerts/{id}/timeline"]["get"]["responses"]["200"]["content"]["application/json"];

export interface TimelineEntry {
  at: string;
  /** started, check, notification, acknowledged, recovered: the marker's colour. */
  type: "started" | "check" | "notification" | "acknowledged" | "recovered";
  /** Bad (red), good (green) or plain. */
  tone: "bad" | "good" | "plain";
  text: string;
  detail?: string;
  /** The result's page, for a check. */
  checkId?: string;
}

const KIND_TEXT: Record<string, string> = {
  alert: "Alert sent",
  escalation: "Escalation sent",
  reminder: "Reminder sent",
  recovery: "Recovery notice sent",
  acknowledgement: "Acknowledgement notice sent",
};

/** Everything that happened to one alert as one list, oldest first (ties keep the story's order). */
export function timelineEntries(t: AlertTimeline): TimelineEntry[] {
  const out: (TimelineEntry & { order: number })[] = [];
  const add = (e: TimelineEntry, order: number) => out.push({ ...e, order });
  add({ at: t.started_at, type: "started", tone: "bad", text: `Alert started: ${t.rule.name}`, detail: `${t.monitor.name} from ${t.region}` }, 1);
  for (const c of t.checks) {
    const up = c.status === "up";
    // A heartbeat's missed deadline had no run; nor does a ping without a start have a run time.
    const ms = hasRunTime(t.monitor.type, c) ? Math.round(c.duration_ms) : null;
    const text =
      t.monitor.type === "heartbeat" && isMissedRun(c) ? `Check ${c.status}: missed run` : up ? `Check passed${ms === null ? "" : ` (${ms} ms)`}` : `Check ${c.status}${ms === null ? "" : ` after ${ms} ms`}`;
    add({ at: c.checked_at, type: "check", tone: up ? "good" : "bad", text, detail: c.error ?? undefined, checkId: c.id }, up ? 3 : 0);
  }
  for (const n of t.notifications) {
    const verb = n.status === "sent" ? (KIND_TEXT[n.kind] ?? `${n.kind} sent`) : n.status === "pending" ? `${n.kind[0]!.toUpperCase()}${n.kind.slice(1)} waiting to be delivered` : `${n.kind[0]!.toUpperCase()}${n.kind.slice(1)} could not be delivered`;
    const attempts = Number(n.attempts) > 1 ? ` after ${String(n.attempts)} attempts` : "";
    add(
      {
        at: n.sent_at ?? n.created_at,
        type: "notification",
        tone: n.status === "failed" ? "bad" : "plain",
        text: `${verb} to ${n.channel_name ?? "a deleted channel"}${n.channel_type ? ` (${n.channel_type})` : ""}${attempts}`,
        detail: n.error ?? undefined,
      },
      2,
    );
  }
  for (const a of t.acknowledgements) add({ at: a.at, type: "acknowledged", tone: "plain", text: `Acknowledged by ${a.by}`, detail: "Escalations and reminders stopped" }, 2);
  if (t.recovered_at) add({ at: t.recovered_at, type: "recovered", tone: "good", text: "Recovered" }, 4);
  return out
    .sort((a, b) => a.at.localeCompare(b.at) || a.order - b.order)
    .map(({ order: _o, ...e }) => e);
}

/** "3 min 20 s", "2 h 5 min", "1 day 4 h": how long the alert lasted (or has lasted). */
export function fmtDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ""}`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h${Math.floor((s % 3600) / 60) ? ` ${Math.floor((s % 3600) / 60)} min` : ""}`;
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  return `${d} day${d === 1 ? "" : "s"}${h ? ` ${h} h` : ""}`;
}
