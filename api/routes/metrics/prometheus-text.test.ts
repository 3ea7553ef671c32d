import { describe, expect, it } from "bun:test";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import type { MonitorSeries } from "../../../domain/results/monitor-metrics.ts";
import { escapeLabelValue, writeMonitorMetrics } from "./prometheus-text.ts";

const series = (over: Partial<MonitorSeries> = {}): MonitorSeries => ({
  monitorId: "mon_1",
  name: "Shop",
  type: "http",
  region: "eu-west",
  group: "",
  tags: "",
  up: 1,
  lastCheckSeconds: 1_800_000_000.5,
  certDays: null,
  domainDays: null,
  checks: { up: 3, down: 0, degraded: 0, timeout: 0, unavailable: 0 },
  responseTime: null,
  alertsFiring: 0,
  ...over,
});

describe("escapeLabelValue", () => {
  it("escapes backslash, double quote and line feed, and only those", () => {
    expect(escapeLabelValue('a\\b"c\nd\te{}=,')).toBe('a\\\\b\\"c\\nd\te{}=,');
  });

  it("round-trips every hostile value through a Prometheus parser", () => {
    const hostile = ['\\', '\\"', '"\\', "\\n", "\n", 'x"} 1\nfoo{y="', "✓ Ünïcode", "end\\"];
    const text = writeMonitorMetrics(hostile.map((name, i) => series({ monitorId: `mon_${i}`, name })));
    const up = parsePrometheusTextFormat(text).find((f) => f.name === "watchpost_monitor_up")!;
    expect(up.metrics.map((m) => m.labels?.name)).toEqual(hostile);
  });
});

describe("writeMonitorMetrics", () => {
  it("writes HELP and TYPE for every family, even with no series", () => {
    const text = writeMonitorMetrics([]);
    expect(text.match(/^# TYPE \S+ (gauge|summary)$/gm)).toHaveLength(7);
    expect(text).toContain("# TYPE watchpost_monitor_response_time_seconds summary\n");
  });

  it("leaves out the samples a series has no figure for", () => {
    const text = writeMonitorMetrics([series({ up: null, lastCheckSeconds: null })]);
    expect(text).not.toMatch(/^watchpost_monitor_up\{/m);
    expect(text).not.toMatch(/^watchpost_monitor_response_time_seconds/m);
    expect(text).not.toMatch(/^watchpost_monitor_certificate_days_left\{/m);
    expect(text).toMatch(/^watchpost_monitor_checks\{.*status="up"\} 3$/m);
    expect(text).toMatch(/^watchpost_monitor_alerts_firing\{.*\} 0$/m);
  });

  it("writes a summary's quantiles, sum and count with the series' labels", () => {
    const text = writeMonitorMetrics([series({ responseTime: { quantiles: [0.1, 0.25, 0.3], sumSeconds: 1.5, count: 9 } })]);
    const labels = 'monitor_id="mon_1",name="Shop",type="http",region="eu-west",group="",tags=""';
    expect(text).toContain(`watchpost_monitor_response_time_seconds{${labels},quantile="0.95"} 0.25\n`);
    expect(text).toContain(`watchpost_monitor_response_time_seconds_sum{${labels}} 1.5\n`);
    expect(text).toContain(`watchpost_monitor_response_time_seconds_count{${labels}} 9\n`);
  });
});
