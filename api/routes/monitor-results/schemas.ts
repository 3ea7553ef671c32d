import { t } from "elysia";
import { Id, Obj, PaginationQuery, Timestamp, Int } from "../../schemas/common.ts";

const nullable = <S extends Parameters<typeof t.Union>[0][number]>(s: S) => t.Union([s, t.Null()]);

const ResultStatus = t.Union(
  [t.Literal("up"), t.Literal("down"), t.Literal("degraded"), t.Literal("timeout"), t.Literal("unavailable")],
  { description: "up, down, degraded, timeout, or unavailable (monitoring_unavailable: no region or runner could run the check; left out of uptime)" },
);
const LocationType = t.Union([t.Literal("region"), t.Literal("runner")]);

const From = t.String({ format: "date-time", description: "Start of the range (inclusive), by due time" });
const To = t.String({ format: "date-time", description: "End of the range (exclusive); default now" });
const Location = t.String({ minLength: 1, maxLength: 200, description: "A region name or a runner id (`run_…`)" });

export const MonitorParams = Obj({ id: Id });
export const CheckParams = Obj({ id: Id, checkId: t.String({ minLength: 1, maxLength: 200, description: "Result id (`chk_…`) or the job id that produced it" }) });

export const CheckResultView = t.Object(
  {
    id: t.String({ description: "`chk_` + 32 hex digits" }),
    job_id: t.String({ description: "The job that produced it; one result per job is stored" }),
    monitor_id: t.String(),
    location: t.String({ description: "Region name or runner id" }),
    location_type: LocationType,
    scheduled_at: t.String({ format: "date-time", description: "The check's due time; ranges, ordering and buckets use it" }),
    checked_at: t.String({ format: "date-time", description: "When it ran" }),
    status: ResultStatus,
    duration_ms: t.Number({ description: "Total duration, ms (the metric response_time)" }),
    error: nullable(t.String({ description: "What went wrong when not up" })),
    data: t.Record(t.String(), t.Unknown(), {
      description:
        "The check type's fields, all present (null when not measured): components.schemas.HttpData, KeywordData, SslData, TcpData, DnsData, PingData, DomainData, HeartbeatData, BrowserLiteData, BrowserFlowData",
    }),
  },
  { title: "CheckResult" },
);

export const ChecksQuery = Obj({
  ...PaginationQuery,
  status: t.Optional(ResultStatus),
  location: t.Optional(Location),
  from: t.Optional(t.String({ format: "date-time", description: "Start of the range (inclusive), by due time; default the start of the retention window" })),
  to: t.Optional(To),
});

export const ExportQuery = Obj({
  format: t.Optional(t.Union([t.Literal("csv"), t.Literal("json")], { default: "csv", description: "csv (default) or json (an array of CheckResult)" })),
  status: t.Optional(ResultStatus),
  location: t.Optional(Location),
  from: t.Optional(t.String({ format: "date-time", description: "Start of the range (inclusive), by due time; default the start of the retention window" })),
  to: t.Optional(To),
});

const figures = {
  uptime_pct: nullable(t.Number({ description: "(up + degraded) / (up + degraded + down + timeout) × 100; null when nothing was counted" })),
  total: Int({ description: "Every result, unavailable ones included" }),
  up: Int(),
  down: Int(),
  degraded: Int({ description: "Counted as up" }),
  timeout: Int({ description: "Counted as down" }),
  unavailable: Int({ description: "Monitoring gaps; left out of uptime" }),
  downtime_seconds_estimate: nullable(t.Number({ description: "(down + timeout) × the monitor's interval; overall, averaged over the locations that checked" })),
};

const UptimeView = t.Object(
  {
    from: Timestamp,
    to: Timestamp,
    ...figures,
    locations: t.Array(t.Object({ location: t.String(), location_type: LocationType, ...figures }), { description: "The same figures per region or runner" }),
  },
  { title: "Uptime" },
);

export const UptimeQuery = Obj({
  from: t.Optional(t.String({ format: "date-time", description: "Start of a custom range (inclusive); answered in `range`" })),
  to: t.Optional(t.String({ format: "date-time", description: "End of the custom range (exclusive); default now; needs from" })),
});

export const MonitorUptimeView = t.Object({
  monitor_id: t.String(),
  windows: t.Object({ "24h": UptimeView, "7d": UptimeView, "30d": UptimeView, "90d": UptimeView }, { description: "Windows ending now" }),
  range: nullable(UptimeView),
});

export const AggregatesQuery = Obj({
  bucket: t.Optional(t.Union([t.Literal("hour"), t.Literal("day")], { default: "hour", description: "UTC hours or UTC days" })),
  from: t.Optional(t.String({ format: "date-time", description: "Start (inclusive); default 24 h before `to` for hours, 30 days for days" })),
  to: t.Optional(To),
  location: t.Optional(Location),
});

const AggregateBucketView = t.Object({
  start: Timestamp,
  checks: Int({ description: "Checks that ran (every status but unavailable)" }),
  unavailable: Int(),
  uptime_pct: nullable(t.Number()),
  avg_ms: nullable(t.Number({ description: "Mean duration of the checks that ran, ms" })),
  p50_ms: nullable(t.Number({ description: "Median duration, ms, from a duration histogram (docs/results-and-uptime.md gives the error bound)" })),
  p95_ms: nullable(t.Number({ description: "95th percentile duration, ms, from the same histogram" })),
  p99_ms: nullable(t.Number({ description: "99th percentile duration, ms, from the same histogram" })),
  max_ms: nullable(t.Number()),
});

export const AggregatesView = t.Object({
  monitor_id: t.String(),
  bucket: t.Union([t.Literal("hour"), t.Literal("day")]),
  from: Timestamp,
  to: Timestamp,
  location: nullable(t.String()),
  data: t.Array(AggregateBucketView, { description: "Every bucket from the one holding `from` up to `to`, oldest first, empty ones included; the first and last count only results inside the range" }),
});
