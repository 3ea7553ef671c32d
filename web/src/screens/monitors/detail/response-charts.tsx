import { useQueries, useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { dataSchemas } from "../../../../../schemas/check-types.ts";
import { api, data } from "../../../api/client";
import { BandLegend, type ChartBand, type Series, TimeChart } from "../../../components/time-chart";
import { ErrorMessage, Loading } from "../../../components/ui";
import type { Monitor } from "../use-monitors";
import {
  type Band,
  type Bucket,
  bucketBands,
  bucketSeries,
  checkBands,
  durationSeries,
  maintenanceBands,
  mergeBands,
  percentileSeries,
  phaseSeries,
  RANGE_SECONDS,
  type RangeKey,
  resolutionOf,
  xRangeOf,
} from "./chart-data";
import { recentChecksQuery } from "./recent-checks";

const RANGE_LABEL: Record<RangeKey, string> = { recent: "Last 100 checks", "1h": "1 hour", "24h": "24 hours", "7d": "7 days", "30d": "30 days", "90d": "90 days", custom: "Custom" };
const STATS = { percentiles: "p50, p95 and p99", avg_ms: "Average per region", p50_ms: "Median (p50) per region", p95_ms: "p95 per region", p99_ms: "p99 per region", max_ms: "Maximum per region" } as const;
type Stat = keyof typeof STATS;
/** Checks read at most for a raw range (10 pages of 100). */
const RAW_PAGES = 10;

export const locationsOf = (m: Monitor) => (m.type === "heartbeat" ? ["heartbeat"] : [...m.regions, ...m.runner_ids]);

/** The timing phases a check type measures: its result data's `*_ms` fields but the total. */
const phasesOf = (type: Monitor["type"]) => Object.keys(dataSchemas[type].properties).filter((k) => k.endsWith("_ms") && k !== "response_time");

const isoOf = (sec: number) => new Date(sec * 1000).toISOString();
/** `datetime-local` value (the browser's zone) of an instant in seconds. */
const localInput = (sec: number) => {
  const d = new Date(sec * 1000);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

export function ResponseCharts({ monitor }: { monitor: Monitor }) {
  const [range, setRange] = useState<RangeKey>("recent");
  const [stat, setStat] = useState<Stat>("avg_ms");
  const nowSec = Math.floor(Date.now() / 60_000) * 60;
  const [custom, setCustom] = useState<[number, number]>([nowSec - 3 * 86_400, nowSec]);
  const [draft, setDraft] = useState({ from: localInput(nowSec - 3 * 86_400), to: localInput(nowSec) });
  const [customError, setCustomError] = useState<string | null>(null);
  // Rounded to the minute so the query keys (and cache) hold while the page stays open.
  const window: [number, number] | null = range === "recent" ? null : range === "custom" ? custom : [nowSec - RANGE_SECONDS[range], nowSec];
  const resolution = window ? resolutionOf(window[0], window[1]) : null;
  const applyCustom = () => {
    const from = Date.parse(draft.from) / 1000;
    const to = Date.parse(draft.to) / 1000;
    if (!Number.isFinite(from) || !Number.isFinite(to)) return setCustomError("Enter both the start and the end.");
    if (to <= from) return setCustomError("The end must be after the start.");
    if (to - from > 400 * 86_400) return setCustomError("Pick at most 400 days.");
    setCustomError(null);
    setCustom([Math.floor(from), Math.floor(to)]);
  };
  return (
    <section aria-labelledby="rt-h" className="panel">
      <header className="page-head">
        <h2 id="rt-h">Response time</h2>
        <div className="segmented" role="group" aria-label="Time range">
          {(Object.keys(RANGE_LABEL) as RangeKey[]).map((r) => (
            <button key={r} aria-pressed={range === r} className={range === r ? "on" : ""} onClick={() => setRange(r)}>
              {RANGE_LABEL[r]}
            </button>
          ))}
        </div>
        {resolution && resolution !== "raw" && (
          <select aria-label="Lines to show" value={stat} onChange={(e) => setStat(e.target.value as Stat)}>
            {Object.entries(STATS).map(([k, v]) => (
              <option key={k} value={k}>
                {v}
              </option>
            ))}
          </select>
        )}
      </header>
      {range === "custom" && (
        <form
          className="row custom-range"
          aria-label="Custom range"
          onSubmit={(e) => {
            e.preventDefault();
            applyCustom();
          }}
        >
          <label>
            From <input type="datetime-local" value={draft.from} onChange={(e) => setDraft({ ...draft, from: e.target.value })} />
          </label>
          <label>
            To <input type="datetime-local" value={draft.to} onChange={(e) => setDraft({ ...draft, to: e.target.value })} />
          </label>
          <button type="submit">Show</button>
          {customError && (
            <span className="field-error" role="alert">
              {customError}
            </span>
          )}
        </form>
      )}
      {window === null ? (
        <RecentCharts monitor={monitor} />
      ) : resolution === "raw" ? (
        <RawRangeChart monitor={monitor} window={window} label={RANGE_LABEL[range]} />
      ) : (
        <AggregateChart monitor={monitor} window={window} bucket={resolution!} stat={stat} label={range === "custom" ? "the range picked" : RANGE_LABEL[range]} />
      )}
    </section>
  );
}

/** Maintenance occurrences over the window, as grey bands. */
function useMaintenance(id: string, window: [number, number] | null) {
  const q = useQuery({
    queryKey: ["monitor-data", id, "maintenance", window?.[0], window?.[1]],
    enabled: window !== null && window[1] > window[0],
    staleTime: 60_000,
    queryFn: () => api.GET("/api/v1/monitors/{id}/maintenance-spans", { params: { path: { id }, query: { from: isoOf(window![0]), to: isoOf(window![1]) } } }).then(data),
  });
  return useMemo(() => maintenanceBands(q.data?.data ?? []), [q.data]);
}

function Chart({ x, series, label, bands, xRange, spanGaps, dashed }: { x: number[]; series: Series[]; label: string; bands: Band[]; xRange: [number, number]; spanGaps?: boolean; dashed?: string[] }) {
  const shown = bands as ChartBand[];
  const words = describeBands(bands);
  return (
    <>
      <TimeChart x={x} series={series} label={words ? `${label}; ${words}` : label} bands={shown} xRange={xRange} spanGaps={spanGaps} dashed={dashed} />
      <BandLegend bands={shown} />
    </>
  );
}

/** "2 stretches of failing checks, 1 maintenance" for screen readers. */
function describeBands(bands: Band[]): string {
  const n = (k: Band["kind"]) => bands.filter((b) => b.kind === k).length;
  const parts = [
    n("failure") && `${n("failure")} stretch${n("failure") === 1 ? "" : "es"} of failing checks`,
    n("degraded") && `${n("degraded")} degraded`,
    n("maintenance") && `${n("maintenance")} maintenance window${n("maintenance") === 1 ? "" : "s"}`,
    n("gap") && `${n("gap")} gap${n("gap") === 1 ? "" : "s"} in monitoring`,
  ].filter(Boolean);
  return parts.join(", ");
}

/** The last 100 results (live: new ones arrive through the layout's event stream), per region and by phase. */
function RecentCharts({ monitor }: { monitor: Monitor }) {
  const q = useQuery(recentChecksQuery(monitor.id));
  const rows = q.data?.data ?? [];
  const locations = useMemo(() => [...new Set(rows.map((r) => r.location))].sort(), [rows]);
  const [picked, setPicked] = useState<string | null>(null);
  const location = picked && locations.includes(picked) ? picked : locations[0];
  const durations = useMemo(() => durationSeries(rows), [rows]);
  const phases = useMemo(() => (location ? phaseSeries(rows, location, phasesOf(monitor.type)) : null), [rows, location, monitor.type]);
  const stretches = useMemo(() => checkBands(rows, monitor.interval_seconds, Date.now() / 1000), [rows, monitor.interval_seconds]);
  // The axis reaches the end of a stretch the latest result opened (failing since its check, until now).
  const allX = useMemo(() => [...rows.map((r) => Date.parse(r.checked_at) / 1000), ...stretches.map((b) => b.to)], [rows, stretches]);
  const xRange = useMemo(() => xRangeOf(allX), [allX]);
  // Whole hours, so live results ask again for maintenance once an hour at most.
  const spanWindow: [number, number] | null = allX.length ? [Math.floor(xRange[0] / 3600) * 3600, Math.ceil((xRange[1] + 1) / 3600) * 3600] : null;
  const maintenance = useMaintenance(monitor.id, spanWindow);
  const bands = useMemo(() => mergeBands([...stretches, ...maintenance]), [stretches, maintenance]);
  if (q.isPending) return <Loading what="recent checks" />;
  if (q.isError) return <ErrorMessage error={q.error} />;
  if (rows.length === 0)
    return (
      <p className="muted">
        {monitor.type === "heartbeat" ? "No results yet. The chart fills in live when the first ping arrives or a deadline passes without one." : "No results yet. The chart fills in live as checks arrive; “Run now” checks at once."}
      </p>
    );
  return (
    <>
      <Chart x={durations.x} series={durations.series} label={`Response time of the last ${durations.x.length} checks, one line per region`} bands={bands} xRange={xRange} spanGaps={false} />
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
          <TimeChart x={phases.x} series={phases.series} label={`Timing phases (${phases.series.map((s) => s.label).join(", ")}) of the last checks from ${location}`} xRange={xRange} />
        </>
      )}
    </>
  );
}

/** Up to six hours: every result in the range (at most 1,000), one line per region. */
function RawRangeChart({ monitor, window, label }: { monitor: Monitor; window: [number, number]; label: string }) {
  const q = useQuery({
    queryKey: ["monitor-data", monitor.id, "raw", window[0], window[1]],
    staleTime: 30_000,
    queryFn: async () => {
      const rows = [];
      for (let page = 1; page <= RAW_PAGES; page++) {
        const r = await api.GET("/api/v1/monitors/{id}/checks", { params: { path: { id: monitor.id }, query: { from: isoOf(window[0]), to: isoOf(window[1]), limit: 100, page } } }).then(data);
        rows.push(...r.data);
        if (page >= Number(r.pagination.totalPages)) break;
      }
      return rows;
    },
  });
  const rows = q.data ?? [];
  const durations = useMemo(() => durationSeries(rows), [rows]);
  const maintenance = useMaintenance(monitor.id, window);
  const bands = useMemo(() => {
    // Silence from the window's start to the first result (and after the last) is a gap too, once the monitor existed.
    const since = Math.max(window[0], Date.parse(monitor.created_at) / 1000);
    const edges = rows.length ? [] : since < window[1] ? [{ from: since, to: window[1], kind: "gap" as const }] : [];
    return mergeBands([...checkBands(rows, monitor.interval_seconds, Date.now() / 1000), ...edges, ...maintenance]);
  }, [rows, monitor.interval_seconds, monitor.created_at, maintenance, window[0], window[1]]);
  if (q.isPending) return <Loading what="checks" />;
  if (q.isError) return <ErrorMessage error={q.error} />;
  return (
    <>
      <Chart x={durations.x} series={durations.series} label={`Response time of every check over ${label}, one line per region`} bands={bands} xRange={window} spanGaps={false} />
      {rows.length === 0 && <p className="muted">No checks in this range.</p>}
    </>
  );
}

const BUCKET_SECONDS = { hour: 3600, day: 86_400 } as const;

/** Hourly or daily buckets: one line per region of one statistic, or the percentiles of all regions. */
function AggregateChart({ monitor, window, bucket, stat, label }: { monitor: Monitor; window: [number, number]; bucket: "hour" | "day"; stat: Stat; label: string }) {
  const id = monitor.id;
  const locations = stat === "percentiles" ? [] : locationsOf(monitor);
  const query = (location?: string) => ({
    queryKey: ["monitor-data", id, "aggregates", bucket, window[0], window[1], location ?? "all"],
    staleTime: 60_000,
    queryFn: () => api.GET("/api/v1/monitors/{id}/aggregates", { params: { path: { id }, query: { bucket, from: isoOf(window[0]), to: isoOf(window[1]), ...(location ? { location } : {}) } } }).then(data),
  });
  // Every region together: the bands (and the percentile lines); then one query per region for its line.
  const results = useQueries({ queries: [query(), ...locations.map((l) => query(l))] });
  const pending = results.some((x) => x.isPending);
  const error = results.find((x) => x.error)?.error;
  const stamp = results.map((x) => x.dataUpdatedAt).join();
  const overall = (results[0]?.data?.data ?? []) as Bucket[];
  const series = useMemo(() => {
    if (stat === "percentiles") return percentileSeries(overall);
    const byLocation = new Map(results.slice(1).filter((x) => x.data).map((x) => [x.data!.location ?? "all", x.data!.data as Bucket[]]));
    return bucketSeries(byLocation, stat);
  }, [stamp, stat]);
  const maintenance = useMaintenance(id, window);
  const bands = useMemo(
    () => mergeBands([...bucketBands(overall, BUCKET_SECONDS[bucket], Date.parse(monitor.created_at) / 1000, Date.now() / 1000), ...maintenance]),
    [stamp, maintenance, bucket, monitor.created_at],
  );
  if (pending) return <Loading what="history" />;
  if (error) return <ErrorMessage error={error} />;
  const empty = !series.series.some((s) => s.values.some((v) => v != null));
  const what = stat === "percentiles" ? `p50, p95 and p99 response time per ${bucket}` : `${STATS[stat].replace(/ per region$/, "")} response time per ${bucket}`;
  return (
    <>
      <Chart
        x={series.x}
        series={series.series}
        label={`${what} over ${label}${stat === "percentiles" ? ", all regions" : ", one line per region"}`}
        bands={bands}
        xRange={window}
        spanGaps={false}
        dashed={stat === "percentiles" ? ["p95", "p99"] : []}
      />
      {empty && <p className="muted">No checks in this range.</p>}
    </>
  );
}
