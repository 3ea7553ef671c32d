import { useQueries, useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { dataSchemas } from "../../../../../schemas/check-types.ts";
import { api, data } from "../../../api/client";
import { TimeChart } from "../../../components/time-chart";
import { ErrorMessage, Loading } from "../../../components/ui";
import type { Monitor } from "../use-monitors";
import { bucketSeries, durationSeries, phaseSeries, type Bucket } from "./chart-data";

const RANGES = {
  recent: { label: "Last 100 checks" },
  "24h": { label: "24 hours", bucket: "hour", ms: 86_400_000 },
  "7d": { label: "7 days", bucket: "hour", ms: 7 * 86_400_000 },
  "30d": { label: "30 days", bucket: "day", ms: 30 * 86_400_000 },
  "90d": { label: "90 days", bucket: "day", ms: 90 * 86_400_000 },
} as const;
type Range = keyof typeof RANGES;
const STATS = { avg_ms: "Average", p50_ms: "Median (p50)", p95_ms: "p95", max_ms: "Maximum" } as const;

export const locationsOf = (m: Monitor) => (m.type === "heartbeat" ? ["heartbeat"] : [...m.regions, ...m.runner_ids]);

/** The timing phases a check type measures: its result data's `*_ms` fields but the total. */
const phasesOf = (type: Monitor["type"]) => Object.keys(dataSchemas[type].properties).filter((k) => k.endsWith("_ms") && k !== "response_time");

export function ResponseCharts({ monitor }: { monitor: Monitor }) {
  const [range, setRange] = useState<Range>("recent");
  const [stat, setStat] = useState<keyof typeof STATS>("avg_ms");
  const id = monitor.id;
  return (
    <section aria-labelledby="rt-h" className="panel">
      <header className="page-head">
        <h2 id="rt-h">Response time</h2>
        <div className="segmented" role="group" aria-label="Time range">
          {(Object.keys(RANGES) as Range[]).map((r) => (
            <button key={r} aria-pressed={range === r} className={range === r ? "on" : ""} onClick={() => setRange(r)}>
              {RANGES[r].label}
            </button>
          ))}
        </div>
        {range !== "recent" && (
          <select aria-label="Statistic per bucket" value={stat} onChange={(e) => setStat(e.target.value as keyof typeof STATS)}>
            {Object.entries(STATS).map(([k, v]) => (
              <option key={k} value={k}>
                {v}
              </option>
            ))}
          </select>
        )}
      </header>
      {range === "recent" ? <RecentCharts monitor={monitor} /> : <AggregateChart id={id} locations={locationsOf(monitor)} range={range} stat={stat} />}
    </section>
  );
}

/** The last 100 results (live: new ones arrive through the layout's event stream), per region and by phase. */
function RecentCharts({ monitor }: { monitor: Monitor }) {
  const q = useQuery({
    queryKey: ["monitor-checks", monitor.id, { page: 1, limit: 100 }],
    queryFn: () => api.GET("/api/v1/monitors/{id}/checks", { params: { path: { id: monitor.id }, query: { limit: 100 } } }).then(data),
  });
  const rows = q.data?.data ?? [];
  const locations = useMemo(() => [...new Set(rows.map((r) => r.location))].sort(), [rows]);
  const [picked, setPicked] = useState<string | null>(null);
  const location = picked && locations.includes(picked) ? picked : locations[0];
  const durations = useMemo(() => durationSeries(rows), [rows]);
  const phases = useMemo(() => (location ? phaseSeries(rows, location, phasesOf(monitor.type)) : null), [rows, location, monitor.type]);
  if (q.isPending) return <Loading what="recent checks" />;
  if (q.isError) return <ErrorMessage error={q.error} />;
  if (durations.x.length === 0) return <p className="muted">No results yet. The chart fills in live as checks arrive; “Run now” checks at once.</p>;
  return (
    <>
      <TimeChart x={durations.x} series={durations.series} label={`Response time of the last ${durations.x.length} checks, one line per region`} />
      {phases && phases.series.length > 0 && (
        <>
          <div className="page-head">
            <h3>Timing phases</h3>
            {locations.length > 1 && (
              <select aria-label="Region of the timing phases" value={location} onChange={(e) => setPicked(e.target.value)}>
                {locations.map((l) => (
                  <option key={l}>{l}</option>
                ))}
              </select>
            )}
          </div>
          <TimeChart x={phases.x} series={phases.series} label={`Timing phases (${phases.series.map((s) => s.label).join(", ")}) of the last checks from ${location}`} />
        </>
      )}
    </>
  );
}

function AggregateChart({ id, locations, range, stat }: { id: string; locations: string[]; range: Exclude<Range, "recent">; stat: keyof typeof STATS }) {
  const r = RANGES[range];
  // Rounded to the minute so the query key (and cache) holds while the page stays open.
  const from = new Date(Math.floor((Date.now() - r.ms) / 60_000) * 60_000).toISOString();
  const results = useQueries({
    queries: locations.map((location) => ({
      queryKey: ["monitor-data", id, "aggregates", r.bucket, from, location],
      staleTime: 60_000,
      queryFn: () => api.GET("/api/v1/monitors/{id}/aggregates", { params: { path: { id }, query: { bucket: r.bucket, from, location } } }).then(data),
    })),
  });
  const pending = results.some((x) => x.isPending);
  const error = results.find((x) => x.error)?.error;
  const byLocation = useMemo(() => new Map(results.filter((x) => x.data).map((x) => [x.data!.location ?? "all", x.data!.data as Bucket[]])), [results.map((x) => x.dataUpdatedAt).join()]);
  const series = useMemo(() => bucketSeries(byLocation, stat), [byLocation, stat]);
  if (pending) return <Loading what="history" />;
  if (error) return <ErrorMessage error={error} />;
  if (!series.series.some((s) => s.values.some((v) => v != null))) return <p className="muted">No checks in this range.</p>;
  return <TimeChart x={series.x} series={series.series} label={`${STATS[stat]} response time per ${r.bucket} over ${r.label}, one line per region`} />;
}
