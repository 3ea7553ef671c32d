import { describe, expect, it } from "bun:test";
import { HISTOGRAM_BOUNDS, HISTOGRAM_SIZE, emptyHistogram, histogramQuantile } from "./histogram.ts";

/** Histogram of raw durations, the way result_duration_hist() builds it. */
const hist = (values: number[]) => {
  const h = emptyHistogram();
  for (const v of values) h[HISTOGRAM_BOUNDS.findLastIndex((lo) => lo <= v)]!++;
  return h;
};

describe("histogramQuantile", () => {
  it("interpolates inside the bucket that holds the rank", () => {
    // 100 values in bucket [100, 125), the largest 120: the bucket is read as [100, 120].
    const h = hist(Array.from({ length: 100 }, (_, i) => (i === 99 ? 120 : 110)));
    expect(histogramQuantile(h, 0.5, 120)).toBe(109.9);
    expect(histogramQuantile(h, 0.95, 120)).toBe(118.9);
    // A lone value in [200, 250) reads as the middle of the bucket.
    expect(histogramQuantile(hist([200, 900]), 0.5, 900)).toBe(225);
  });

  it("never goes past the observed maximum, even in the open last bucket", () => {
    expect(histogramQuantile(hist([150_000]), 0.5, 150_000)).toBe(150_000);
    expect(histogramQuantile(hist([0, 0, 0]), 0.95, 0)).toBe(0);
  });

  it("stays within one bucket width of the exact nearest-rank percentile", () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const values = Array.from({ length: 5000 }, () => Math.floor(Math.exp(rand() * Math.log(120_000))));
    const sorted = [...values].sort((a, b) => a - b);
    const max = sorted.at(-1)!;
    for (const q of [0.5, 0.95, 0.99]) {
      const exact = sorted[Math.ceil(q * sorted.length) - 1]!;
      const i = HISTOGRAM_BOUNDS.findLastIndex((lo) => lo <= exact);
      const width = (HISTOGRAM_BOUNDS[i + 1] ?? max) - HISTOGRAM_BOUNDS[i]!;
      expect(Math.abs(histogramQuantile(hist(values), q, max)! - exact)).toBeLessThanOrEqual(width);
    }
  });

  it("answers null without counted durations", () => {
    expect(histogramQuantile(null, 0.5, null)).toBeNull();
    expect(histogramQuantile(new Array(HISTOGRAM_SIZE).fill(0), 0.5, null)).toBeNull();
  });
});
