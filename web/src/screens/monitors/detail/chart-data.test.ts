import { describe, expect, it } from "bun:test";
import { barLevel, bucketBands, bucketSeries, calendarWeeks, checkBands, describeBars, durationSeries, maintenanceBands, mergeBands, percentileSeries, phaseLabel, phaseSeries, resolutionOf, xRangeOf } from "./chart-data";

const check = (at: string, location: string, duration_ms: number, data: Record<string, unknown> = {}, status = "up") => ({ checked_at: `2026-01-01T00:00:${at}Z`, location, duration_ms, data, status }) as never;

describe("chart data", () => {
  it("draws one line per region on a shared, ordered time axis", () => {
    const { x, series } = durationSeries([check("03", "us", 30), check("01", "eu", 10), check("02", "eu", 20), check("04", "eu", 0, {}, "unavailable")]);
    expect(x).toEqual([1767225601, 1767225602, 1767225603]);
    // undefined: no check of that region at that instant (the line joins over it).
    expect(series).toEqual([
      { label: "eu", values: [10, 20, undefined] },
      { label: "us", values: [undefined, undefined, 30] },
    ]);
  });

  it("breaks a region's line at a failed check instead of plotting how fast it failed", () => {
    // Connection refused after 2 ms is no response time: null (a gap), not a dip to 2 ms.
    const { x, series } = durationSeries([check("01", "eu", 120), check("02", "eu", 2, {}, "down"), check("03", "eu", 30_000, {}, "timeout"), check("04", "eu", 300, {}, "degraded"), check("05", "eu", 110)]);
    expect(x).toHaveLength(5);
    expect(series).toEqual([{ label: "eu", values: [120, null, null, 300, 110] }]);
  });

  it("draws the measured timing phases of one region", () => {
    const rows = [check("01", "eu", 50, { dns_ms: 1, connect_ms: 2, tls_ms: null, ttfb_ms: 40 }), check("02", "eu", 60, { dns_ms: 3, connect_ms: 4, tls_ms: null, ttfb_ms: 50 }), check("02", "us", 9, { dns_ms: 9 })];
    const { x, series } = phaseSeries(rows, "eu", ["dns_ms", "connect_ms", "tls_ms", "ttfb_ms"]);
    expect(x).toHaveLength(2);
    expect(series).toEqual([
      { label: "DNS", values: [1, 3] },
      { label: "connect", values: [2, 4] },
      { label: "TTFB", values: [40, 50] },
    ]);
    expect(phaseLabel("dom_content_loaded_ms")).toBe("dom content loaded");
  });

  it("aligns hourly buckets of several regions, empty where one has none", () => {
    const b = (start: string, avg: number | null) => ({ start: `2026-01-01T0${start}:00:00Z`, avg_ms: avg }) as never;
    const { x, series } = bucketSeries(new Map([["eu", [b("0", 10), b("1", 12)]], ["us", [b("1", 30)]]]), "avg_ms");
    expect(x).toHaveLength(2);
    expect(series).toEqual([
      { label: "eu", values: [10, 12] },
      { label: "us", values: [null, 30] },
    ]);
  });

  it("colours days by uptime and says what the bar shows", () => {
    expect([barLevel(100, 5), barLevel(99.5, 5), barLevel(97, 5), barLevel(50, 5), barLevel(null, 0)]).toEqual(["good", "ok", "warn", "bad", "none"]);
    expect(describeBars([{ uptime: 100, checks: 10 }, { uptime: 98.5, checks: 10 }, { uptime: null, checks: 0 }])).toBe("2 of 3 days with checks; 1 day below 99.9 %, worst 98.50 %");
    expect(describeBars([{ uptime: null, checks: 0 }])).toBe("No checks in the last 1 days");
  });

  it("shades failing and degraded checks, unavailable ones and silences as bands", () => {
    const at = (m: number, status: string) => ({ checked_at: new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString(), status }) as never;
    const t0 = Date.UTC(2026, 0, 1) / 1000;
    // Every minute: up, down, timeout (one band), degraded, up, then nothing for 5 minutes, then unavailable.
    // A result holds from its check to the next one (at most an interval); a silence starts when a check was due.
    const bands = checkBands([at(0, "up"), at(1, "down"), at(2, "timeout"), at(3, "degraded"), at(4, "up"), at(10, "up"), at(11, "unavailable")], 60);
    expect(bands).toEqual([
      { from: t0 + 60, to: t0 + 180, kind: "failure" },
      { from: t0 + 180, to: t0 + 240, kind: "degraded" },
      { from: t0 + 300, to: t0 + 600, kind: "gap" },
      { from: t0 + 660, to: t0 + 720, kind: "gap" },
    ]);
    expect(checkBands([at(0, "up")], 60)).toEqual([]);
  });

  it("starts a failing stretch at the first failing check, not half an interval before it", () => {
    const at = (iso: string, status: string, location = "eu") => ({ checked_at: `2026-11-29T${iso}Z`, status, location }) as never;
    const s = (iso: string) => Date.parse(`2026-11-29T${iso}Z`) / 1000;
    // The report: every 300 s, up at 13:07:48, refused at 13:10:42 (the latest result), looked at 13:11:00.
    expect(checkBands([at("13:02:48", "up"), at("13:07:48", "up"), at("13:10:42", "down")], 300, s("13:11:00"))).toEqual([{ from: s("13:10:42"), to: s("13:11:00"), kind: "failure" }]);
    // Still failing with no check since: until the next check was due, at the latest.
    expect(checkBands([at("13:07:48", "up"), at("13:10:42", "down")], 300, s("14:00:00"))).toEqual([{ from: s("13:10:42"), to: s("13:15:42"), kind: "failure" }]);
    // Recovered: until the region's next result, not another region's result in between.
    expect(checkBands([at("13:00:00", "up"), at("13:05:00", "down"), at("13:05:10", "up", "us"), at("13:10:00", "up")], 300)).toEqual([{ from: s("13:05:00"), to: s("13:10:00"), kind: "failure" }]);
  });

  it("shades buckets below 100 % and buckets without checks since the monitor existed", () => {
    const b = (h: number, checks: number, uptime: number | null) => ({ start: new Date(Date.UTC(2026, 0, 1, h)).toISOString(), checks, uptime_pct: uptime, unavailable: 0 });
    const t0 = Date.UTC(2026, 0, 1) / 1000;
    const buckets = [b(0, 0, null), b(1, 60, 100), b(2, 60, 98), b(3, 0, null), b(4, 0, null)];
    // Created at 00:30, now 04:15: the hour before creation is no gap, the future is none either.
    expect(bucketBands(buckets, 3600, t0 + 1800, t0 + 4 * 3600 + 900)).toEqual([
      { from: t0 + 1800, to: t0 + 3600, kind: "gap" },
      { from: t0 + 7200, to: t0 + 10800, kind: "failure" },
      { from: t0 + 10800, to: t0 + 4 * 3600 + 900, kind: "gap" },
    ]);
    expect(maintenanceBands([{ starts_at: "2026-01-01T00:00:00Z", ends_at: "2026-01-01T01:00:00Z" }, { starts_at: "2026-01-01T00:30:00Z", ends_at: "2026-01-01T02:00:00Z" }])).toEqual([{ from: t0, to: t0 + 7200, kind: "maintenance" }]);
    expect(mergeBands([{ from: 5, to: 6, kind: "gap" }, { from: 1, to: 2, kind: "failure" }])).toEqual([{ from: 1, to: 2, kind: "failure" }, { from: 5, to: 6, kind: "gap" }]);
  });

  it("draws p50, p95 and p99 lines from buckets", () => {
    const { x, series } = percentileSeries([{ start: "2026-01-01T00:00:00Z", p50_ms: 10, p95_ms: 40, p99_ms: 90 }, { start: "2026-01-01T01:00:00Z", p50_ms: null, p95_ms: null, p99_ms: null }]);
    expect(x).toEqual([1767225600, 1767229200]);
    expect(series).toEqual([
      { label: "p50", values: [10, null] },
      { label: "p95", values: [40, null] },
      { label: "p99", values: [90, null] },
    ]);
  });

  it("keeps the time axis on the range picked, and a lone result within minutes of it (not years)", () => {
    expect(xRangeOf([1767225600], [1767139200, 1767225600])).toEqual([1767139200, 1767225600]);
    expect(xRangeOf([1767225600])).toEqual([1767225540, 1767225660]);
    expect(xRangeOf([1767225600, 1767225610])).toEqual([1767225540, 1767225670]);
    expect(xRangeOf([1767225600, 1767312000])).toEqual([1767225600, 1767312000]);
    expect([resolutionOf(0, 3600), resolutionOf(0, 86_400), resolutionOf(0, 30 * 86_400)]).toEqual(["raw", "hour", "day"]);
  });

  it("lays 90 days out as weeks, Monday first", () => {
    // 2026-01-01 is a Thursday.
    const days = Array.from({ length: 10 }, (_, i) => ({ day: new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10), uptime: 100, checks: 1 }));
    const weeks = calendarWeeks(days);
    expect(weeks).toHaveLength(2);
    expect(weeks[0]!.map((d) => d?.day ?? null)).toEqual([null, null, null, "2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04"]);
    expect(weeks[1]!.map((d) => d?.day ?? null)).toEqual(["2026-01-05", "2026-01-06", "2026-01-07", "2026-01-08", "2026-01-09", "2026-01-10", null]);
    expect(calendarWeeks([])).toEqual([]);
  });
});
