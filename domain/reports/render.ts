import type { MailAttachment } from "../../core/mail/mailer.ts";
import { escapeHtml } from "../status-pages/html.ts";
import { renderUptimeChart } from "./chart.ts";
import type { MonitorSummary, ReportData } from "./data.ts";

export interface RenderedReport {
  subject: string;
  text: string;
  html: string;
  attachments: MailAttachment[];
}

const CHART_CID = "uptime-chart@watchpost";
const MAX_LISTED = 100;
const pct = (p: number | null) => (p === null ? "no data" : `${p >= 99.995 && p < 100 ? "99.99" : p.toFixed(2)} %`);
const ms = (v: number | null) => (v === null ? "–" : `${v} ms`);
const day = (d: Date, zone: string) => d.toLocaleDateString("en-GB", { timeZone: zone, day: "numeric", month: "short", year: "numeric" });

function downtime(seconds: number | null): string {
  if (seconds === null || seconds === 0) return "none";
  const h = Math.floor(seconds / 3600);
  const m = Math.round((seconds % 3600) / 60);
  return h > 0 ? `${h} h ${m} min` : `${Math.max(1, m)} min`;
}

/** The period as people say it: "17 Nov 2026 – 23 Nov 2026" (the last day, not the exclusive end). */
function periodLabel(data: Pick<ReportData, "period" | "timezone">): string {
  const last = new Date(data.period.to.getTime() - 1);
  return `${day(data.period.from, data.timezone)} – ${day(last, data.timezone)}`;
}

/**
 * The report email: a plain-text part that says everything, and an HTML part with the daily chart as
 * an inline PNG (cid:, so no image is fetched from anywhere). Every name is escaped.
 */
export function renderReport(data: ReportData, links: { unsubscribe: string; dashboard: string }, preview = false): RenderedReport {
  const label = periodLabel(data);
  const kind = data.frequency === "weekly" ? "Weekly" : "Monthly";
  const subject = `${preview ? "[Preview] " : ""}${kind} report for ${data.title}: ${pct(data.uptime_pct)} uptime (${label})`;
  const chart = renderUptimeChart(data.daily);
  // Worst first; a large organisation's email lists the MAX_LISTED worst and counts the rest.
  const ranked = [...data.monitors].sort((a, b) => (a.uptime_pct ?? 101) - (b.uptime_pct ?? 101) || a.name.localeCompare(b.name));
  const listed = ranked.slice(0, MAX_LISTED);
  const more = ranked.length - listed.length;
  const next = ranked[MAX_LISTED]?.uptime_pct ?? null;
  const moreLine = more > 0 ? `and ${more} more monitor${more === 1 ? "" : "s"}, ${next === null ? "without checks in this period" : `each at ${pct(next)} or better`}` : null;
  const row = (m: MonitorSummary) => `  ${m.name}: ${pct(m.uptime_pct)}, downtime ${downtime(m.downtime_seconds)}, avg ${ms(m.avg_ms)}`;
  const text = [
    `${kind} report for ${data.title}`,
    `${label} (${data.timezone})`,
    "",
    `Overall uptime: ${pct(data.uptime_pct)}`,
    "",
    "Uptime per monitor, worst first:",
    ...(listed.length ? listed.map(row) : ["  (no monitors)"]),
    ...(moreLine ? [`  ${moreLine}`] : []),
    "",
    "Slowest monitors (average response time):",
    ...(data.slowest.length ? data.slowest.map((m) => `  ${m.name}: ${ms(m.avg_ms)} (p95 ${ms(m.p95_ms)})`) : ["  (no checks)"]),
    "",
    "Incidents:",
    ...(data.incidents.length ? data.incidents.map((i) => `  ${i.title} (${i.impact}, ${i.status})`) : ["  none"]),
    "",
    "Daily uptime:",
    ...data.daily.map((d) => `  ${d.date}: ${pct(d.uptime_pct)}`),
    "",
    `Dashboard: ${links.dashboard}`,
    `Unsubscribe from this report: ${links.unsubscribe}`,
    "",
  ].join("\n");
  const e = escapeHtml;
  const td = 'style="padding:4px 8px;border-bottom:1px solid #e2e8f0"';
  const th = (label: string, align = "right") => `<th align="${align}" style="padding:4px 8px">${label}</th>`;
  const monitorRows = listed
    .map((m) => `<tr><td ${td}>${e(m.name)}</td><td ${td} align="right">${pct(m.uptime_pct)}</td><td ${td} align="right">${downtime(m.downtime_seconds)}</td><td ${td} align="right">${ms(m.avg_ms)}</td></tr>`)
    .join("");
  const slowRows = data.slowest.map((m) => `<tr><td ${td}>${e(m.name)}</td><td ${td} align="right">${ms(m.avg_ms)}</td><td ${td} align="right">${ms(m.p95_ms)}</td></tr>`).join("");
  const incidentItems = data.incidents.map((i) => `<li>${e(i.title)} <span style="color:#64748b">(${e(i.impact)}, ${e(i.status)})</span></li>`).join("");
  const first = data.daily[0]?.date ?? "";
  const lastDay = data.daily.at(-1)?.date ?? "";
  const html = `<!doctype html><html><body style="font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#0f172a;max-width:600px;margin:0 auto;padding:16px">
<h1 style="font-size:20px;margin:0 0 4px">${kind} report for ${e(data.title)}</h1>
<p style="color:#64748b;margin:0 0 16px">${e(label)} (${e(data.timezone)})</p>
<p style="font-size:28px;font-weight:600;margin:0">${pct(data.uptime_pct)}</p><p style="color:#64748b;margin:0 0 12px">overall uptime</p>
<img src="cid:${CHART_CID}" width="${chart.width}" height="${chart.height}" alt="Daily uptime from ${e(first)} to ${e(lastDay)}" style="display:block;max-width:100%;height:auto">
<p style="color:#64748b;font-size:12px;margin:2px 0 16px">Daily uptime, ${e(first)} to ${e(lastDay)}; scale ${chart.floor_pct} % to 100 %</p>
<h2 style="font-size:16px">Uptime per monitor${data.monitors.length > 1 ? ", worst first" : ""}</h2>
${data.monitors.length ? `<table cellspacing="0" style="border-collapse:collapse;width:100%;font-size:14px"><tr>${th("Monitor", "left")}${th("Uptime")}${th("Downtime")}${th("Avg")}</tr>${monitorRows}</table>${moreLine ? `<p style="color:#64748b">${moreLine}.</p>` : ""}` : "<p>No monitors.</p>"}
<h2 style="font-size:16px">Slowest monitors</h2>
${data.slowest.length ? `<table cellspacing="0" style="border-collapse:collapse;width:100%;font-size:14px"><tr>${th("Monitor", "left")}${th("Avg")}${th("p95")}</tr>${slowRows}</table>` : "<p>No checks in this period.</p>"}
<h2 style="font-size:16px">Incidents</h2>
${data.incidents.length ? `<ul>${incidentItems}</ul>` : "<p>No incidents.</p>"}
<p style="color:#64748b;font-size:12px;margin-top:24px"><a href="${e(links.dashboard)}">Open the dashboard</a> · <a href="${e(links.unsubscribe)}">Unsubscribe from this report</a></p>
</body></html>`;
  return { subject, text, html, attachments: [{ filename: "uptime.png", contentType: "image/png", content: chart.png.toString("base64"), cid: CHART_CID }] };
}
