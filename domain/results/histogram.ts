/**
 * Lower bounds (ms) of the duration histogram buckets. Bucket i is [BOUNDS[i], BOUNDS[i+1]); the last
 * is open-ended. Must match result_duration_bucket() in db/migrations/20261122000300 (a test checks).
 */
export const HISTOGRAM_BOUNDS = [
  0, 2, 4, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 125, 150, 200, 250, 300, 400, 500, 600, 800, 1000,
  1250, 1500, 2000, 2500, 3000, 4000, 5000, 6000, 8000, 10000, 12500, 15000, 20000, 25000, 30000, 40000, 50000,
  60000, 80000, 100000, 120000,
] as const;

export const HISTOGRAM_SIZE = HISTOGRAM_BOUNDS.length;

/** Index of the bucket holding `ms` (result_duration_bucket() in SQL). */
export function histogramIndex(ms: number): number {
  let lo = 0;
  let hi = HISTOGRAM_SIZE - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (HISTOGRAM_BOUNDS[mid]! <= ms) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export function emptyHistogram(): number[] {
  return new Array<number>(HISTOGRAM_SIZE).fill(0);
}

/** Adds `b` into `a` element-wise (a null `b` adds nothing) and returns `a`. */
export function addHistogram(a: number[], b: number[] | null | undefined): number[] {
  if (b) for (let i = 0; i < HISTOGRAM_SIZE; i++) a[i] = (a[i] ?? 0) + (b[i] ?? 0);
  return a;
}

/**
 * The q-quantile (0 < q <= 1) of the durations counted in `hist`, by nearest rank: find the bucket
 * holding the rank, place the rank's value at its share of that bucket (a lone value at the middle),
 * cap at the observed maximum (the top rank is the maximum). Estimate and true value share a
 * bucket, so the error is below that bucket's width.
 */
export function histogramQuantile(hist: readonly number[] | null, q: number, max: number | null): number | null {
  if (!hist) return null;
  const n = hist.reduce((s, c) => s + c, 0);
  if (n === 0) return null;
  const rank = Math.max(1, Math.ceil(q * n));
  if (rank === n && max !== null) return max;
  let before = 0;
  for (let i = 0; i < hist.length; i++) {
    const c = hist[i] ?? 0;
    if (c > 0 && before + c >= rank) {
      const lo = HISTOGRAM_BOUNDS[i]!;
      const hi = Math.min(HISTOGRAM_BOUNDS[i + 1] ?? max ?? lo, max ?? Number.POSITIVE_INFINITY);
      const value = lo + (Math.max(hi, lo) - lo) * ((rank - before - 0.5) / c);
      return Math.round(value * 10) / 10;
    }
    before += c;
  }
  return max;
}
