import { RESPONSE_TIME_BUCKETS, type MonitorSeries } from "../../../domain/results/monitor-metrics.ts";

/** The Prometheus text exposition format, version 0.0.4. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** Label values escape backslash, double quote and line feed; nothing else is special. */
export function escapeLabelValue(v: string): string {
  return v.replace(/[\\"\n]/g, (c) => (c === "\\" ? "\\\\" : c === '"' ? '\\"' : "\\n"));
}

const num = (v: number) => (Number.isNaN(v) ? "NaN" : v === Infinity ? "+Inf" : v === -Infinity ? "-Inf" : String(v));

interface Family {
  name: string;
  type: "gauge" | "counter" | "histogram";
  help: string;
  /** Appends this family's samples of one series; `labels` is the series' label text without braces. */
  samples(s: MonitorSeries, labels: string, out: string[]): void;
}

const STATUSES = ["up", "down", "degraded", "timeout", "unavailable"] as const;

/** Every family the scrape holds, in the order written; docs/metrics.md lists the same. */
const MONITOR_FAMILIES: readonly Family[] = [
  {
    name: "watchpost_monitor_up",
    type: "gauge",
    help: "1 when the newest check of this monitor from this region was up or degraded, 0 when down or timed out",
    samples: (s, l, out) => void (s.up !== null && out.push(`watchpost_monitor_up{${l}} ${s.up}\n`)),
  },
  {
    name: "watchpost_monitor_last_check_timestamp_seconds",
    type: "gauge",
    help: "Unix time of the newest check of this monitor from this region",
    samples: (s, l, out) => void (s.lastCheckSeconds !== null && out.push(`watchpost_monitor_last_check_timestamp_seconds{${l}} ${num(s.lastCheckSeconds)}\n`)),
  },
  {
    name: "watchpost_monitor_response_time_seconds",
    type: "histogram",
    help: "Response time of the checks that ran since the start of the current UTC hour (counters restart each hour); not for heartbeat monitors",
    samples: (s, l, out) => {
      const rt = s.responseTime;
      if (!rt) return;
      RESPONSE_TIME_BUCKETS.forEach((le, i) => out.push(`watchpost_monitor_response_time_seconds_bucket{${l},le="${le}"} ${rt.buckets[i]}\n`));
      out.push(
        `watchpost_monitor_response_time_seconds_bucket{${l},le="+Inf"} ${rt.count}\n`,
        `watchpost_monitor_response_time_seconds_sum{${l}} ${num(rt.sumSeconds)}\n`,
        `watchpost_monitor_response_time_seconds_count{${l}} ${rt.count}\n`,
      );
    },
  },
  {
    name: "watchpost_monitor_checks_total",
    type: "counter",
    help: "Checks of this monitor from this region since the start of the current UTC hour, by status (counters restart each hour)",
    samples: (s, l, out) => {
      for (const st of STATUSES) out.push(`watchpost_monitor_checks_total{${l},status="${st}"} ${s.checks[st]}\n`);
    },
  },
  {
    name: "watchpost_monitor_certificate_expiry_timestamp_seconds",
    type: "gauge",
    help: "Unix time the TLS certificate expires, from the newest ssl or smtp check",
    samples: (s, l, out) => void (s.certExpirySeconds !== null && out.push(`watchpost_monitor_certificate_expiry_timestamp_seconds{${l}} ${num(s.certExpirySeconds)}\n`)),
  },
  {
    name: "watchpost_monitor_domain_expiry_timestamp_seconds",
    type: "gauge",
    help: "Unix time the domain registration expires, from the newest domain check",
    samples: (s, l, out) => void (s.domainExpirySeconds !== null && out.push(`watchpost_monitor_domain_expiry_timestamp_seconds{${l}} ${num(s.domainExpirySeconds)}\n`)),
  },
  {
    name: "watchpost_monitor_certificate_days_left",
    type: "gauge",
    help: "Deprecated, removed in the next release: use watchpost_monitor_certificate_expiry_timestamp_seconds. Whole days until the TLS certificate expires",
    samples: (s, l, out) => void (s.certDays !== null && out.push(`watchpost_monitor_certificate_days_left{${l}} ${num(s.certDays)}\n`)),
  },
  {
    name: "watchpost_monitor_domain_days_left",
    type: "gauge",
    help: "Deprecated, removed in the next release: use watchpost_monitor_domain_expiry_timestamp_seconds. Whole days until the domain registration expires",
    samples: (s, l, out) => void (s.domainDays !== null && out.push(`watchpost_monitor_domain_days_left{${l}} ${num(s.domainDays)}\n`)),
  },
  {
    name: "watchpost_monitor_maintenance",
    type: "gauge",
    help: "1 while a maintenance window covering this monitor is active, else 0",
    samples: (s, l, out) => void out.push(`watchpost_monitor_maintenance{${l}} ${s.maintenance}\n`),
  },
  {
    name: "watchpost_monitor_maintenance_paused",
    type: "gauge",
    help: "1 while an active maintenance window covering this monitor pauses its checks (pause_monitors), else 0",
    samples: (s, l, out) => void out.push(`watchpost_monitor_maintenance_paused{${l}} ${s.maintenancePaused}\n`),
  },
  {
    name: "watchpost_monitor_alerts_firing",
    type: "gauge",
    help: "Alert rules firing now for this monitor and region (acknowledged ones included)",
    samples: (s, l, out) => void out.push(`watchpost_monitor_alerts_firing{${l}} ${s.alertsFiring}\n`),
  },
];

const labelText = (s: MonitorSeries) =>
  `monitor_id="${escapeLabelValue(s.monitorId)}",name="${escapeLabelValue(s.name)}",type="${escapeLabelValue(s.type)}",region="${escapeLabelValue(s.region)}",group="${escapeLabelValue(s.group)}",tags="${escapeLabelValue(s.tags)}"`;

/**
 * Writes the series family by family (the format wants each family's samples together), building
 * each series' label text once: a direct writer, as 10,000 monitors make ~150,000 samples per scrape.
 */
export function writeMonitorMetrics(series: readonly MonitorSeries[]): string {
  const labels = series.map(labelText);
  const out: string[] = [];
  for (const f of MONITOR_FAMILIES) {
    out.push(`# HELP ${f.name} ${f.help}\n# TYPE ${f.name} ${f.type}\n`);
    for (let i = 0; i < series.length; i++) f.samples(series[i]!, labels[i]!, out);
  }
  return out.join("");
}
