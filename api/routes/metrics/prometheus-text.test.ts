import { describe, expect, it } from "bun:test";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import type { MonitorSeries } from "../../../domain/results/monitor-metrics.ts";
import { readExposition } from "../../../tests/support/prometheus-exposition.ts";
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
  certExpirySeconds: null,
  domainExpirySeconds: null,
  maintenance: 0,
  maintenancePaused: 0,
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
    expect(text.match(/^# TYPE \S+ (gauge|counter|histogram)$/gm)).toHaveLength(11);
    expect(text).toContain("# TYPE watchpost_monitor_response_time_seconds histogram\n");
    expect(text).toContain("# TYPE watchpost_monitor_checks_total counter\n");
  });

  it("leaves out the samples a series has no figure for", () => {
    const text = writeMonitorMetrics([series({ up: null, lastCheckSeconds: null })]);
    expect(text).not.toMatch(/^watchpost_monitor_up\{/m);
    expect(text).not.toMatch(/^watchpost_monitor_response_time_seconds/m);
    expect(text).not.toMatch(/^watchpost_monitor_certificate_days_left\{/m);
    expect(text).toMatch(/^watchpost_monitor_checks_total\{.*status="up"\} 3$/m);
    expect(text).toMatch(/^watchpost_monitor_alerts_firing\{.*\} 0$/m);
  });

  it("writes a histogram's cumulative buckets, +Inf, sum and count with the series' labels", () => {
    const buckets = [0, 0, 1, 4, 8, 9, 9, 9, 9, 9, 9, 9];
    const text = writeMonitorMetrics([series({ responseTime: { buckets, sumSeconds: 1.5, count: 10 } })]);
    const labels = 'monitor_id="mon_1",name="Shop",type="http",region="eu-west",group="",tags=""';
    expect(text).toContain(`watchpost_monitor_response_time_seconds_bucket{${labels},le="0.1"} 4\n`);
    expect(text).toContain(`watchpost_monitor_response_time_seconds_bucket{${labels},le="60"} 9\n`);
    expect(text).toContain(`watchpost_monitor_response_time_seconds_bucket{${labels},le="+Inf"} 10\n`);
    expect(text).toContain(`watchpost_monitor_response_time_seconds_sum{${labels}} 1.5\n`);
    expect(text).toContain(`watchpost_monitor_response_time_seconds_count{${labels}} 10\n`);
  });

  it("writes an exposition that follows the text format's rules, whatever each series lacks", () => {
    const text = writeMonitorMetrics([
      series({ monitorId: "mon_1", responseTime: { buckets: [0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1], sumSeconds: 0.09, count: 1 }, certDays: 3, certExpirySeconds: 1_800_259_200 }),
      series({ monitorId: "mon_2", type: "heartbeat", region: "heartbeat", maintenance: 1, maintenancePaused: 1 }),
      series({ monitorId: "mon_3", up: null, lastCheckSeconds: null, responseTime: { buckets: new Array(12).fill(0), sumSeconds: 0, count: 0 } }),
    ]);
    const exp = readExposition(text);
    expect(exp.types.get("watchpost_monitor_response_time_seconds")).toBe("histogram");
    expect([...exp.types.values()].filter((t) => t === "summary")).toEqual([]);
  });
});
