import { describe, expect, it } from "bun:test";
import { barLevel, bucketSeries, describeBars, durationSeries, phaseLabel, phaseSeries } from "./chart-data";

const check = (at: string, location: string, duration_ms: number, data: Record<string, unknown> = {}, status = "up") => ({ checked_at: `2026-01-01T00:00:${at}Z`, location, duration_ms, data, status }) as never;

describe("chart data", () => {
  it("draws one line per region on a shared, ordered time axis", () => {
    const { x, series } = durationSeries([check("03", "us", 30), check("01", "eu", 10), check("02", "eu", 20), check("04", "eu", 0, {}, "unavailable")]);
    expect(x).toEqual([1767225601, 1767225602, 1767225603]);
    expect(series).toEqual([
      { label: "eu", values: [10, 20, null] },
      { label: "us", values: [null, null, 30] },
    ]);
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
});
