import { describe, expect, it } from "bun:test";
import type { MonitorSummary, ReportData } from "./data.ts";
import { renderReport } from "./render.ts";

const monitor = (i: number, uptime: number | null): MonitorSummary => ({ id: `m${i}`, name: `Mon ${String(i).padStart(3, "0")}`, type: "http", uptime_pct: uptime, checks: 10, failed_checks: 0, downtime_seconds: 0, avg_ms: 100, p95_ms: 150 });
const base = (monitors: MonitorSummary[]): ReportData => ({
  title: "Acme <Ops>",
  frequency: "monthly",
  timezone: "UTC",
  period: { from: new Date("2026-10-01T00:00:00Z"), to: new Date("2026-11-01T00:00:00Z") },
  uptime_pct: 99.5,
  monitors,
  slowest: monitors.slice(0, 1),
  incidents: [],
  daily: [{ date: "2026-10-01", uptime_pct: 99.5 }],
});
const links = { unsubscribe: "https://w.example/api/v1/reports/unsubscribe?token=a.b", dashboard: "https://w.example/" };

describe("report email", () => {
  it("escapes names, embeds the chart by cid and says the period and overall uptime in the subject", () => {
    const mail = renderReport(base([monitor(1, 99.5)]), links);
    expect(mail.subject).toBe("Monthly report for Acme <Ops>: 99.50 % uptime (1 Oct 2026 – 31 Oct 2026)");
    expect(mail.html).toContain("Acme &lt;Ops&gt;");
    expect(mail.html).not.toContain("Acme <Ops>");
    expect(mail.html).toContain('<img src="cid:uptime-chart@watchpost"');
    expect(mail.attachments).toEqual([{ filename: "uptime.png", contentType: "image/png", content: expect.any(String), cid: "uptime-chart@watchpost" }]);
    expect(mail.text).toContain(`Unsubscribe from this report: ${links.unsubscribe}`);
    expect(renderReport(base([]), links, true).subject).toStartWith("[Preview] Monthly report");
  });

  it("lists the worst hundred monitors first and counts the rest", () => {
    const many = Array.from({ length: 150 }, (_, i) => monitor(i, i === 7 ? 90 : i === 8 ? null : 100 - i / 1000));
    const mail = renderReport(base(many), links);
    const lines = mail.text.split("\n");
    const first = lines.indexOf("Uptime per monitor, worst first:") + 1;
    expect(lines[first]).toStartWith("  Mon 007: 90.00 %");
    expect(lines[first + 1]).toStartWith("  Mon 149: ");
    expect(lines.filter((l) => /^ {2}Mon \d{3}: /.test(l)).length).toBe(100 + 1); // 100 listed + the slowest
    expect(mail.text).toContain("and 50 more monitors, each at ");
    expect(mail.html).toContain("and 50 more monitors");
    // A monitor without data comes last.
    expect(mail.text.indexOf("Mon 008: no data")).toBe(-1);
  });
});
