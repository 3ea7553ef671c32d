import type { Sql } from "../../db/client.ts";
import { claimRateLimitTokens, deleteRateLimitWindowsBefore } from "../../db/queries/rate-limits.ts";
import { deleteQuietSignInThrottles } from "../../db/queries/sign-in-throttles.ts";
import { SIGN_IN_THROTTLE } from "../../domain/accounts/sign-in-throttle.ts";

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetSeconds: number;
}

interface Bucket {
  windowStart: number;
  local: number;
  claimedTotal: number;
  exhausted: boolean;
  pending: Promise<void> | null;
}

const WINDOW_MS = 60_000;

/**
 * Fixed one-minute windows whose counters live in PostgreSQL, so several API processes share them.
 * Each process claims tokens in small leases (1 for small limits) and spends them locally:
 * the shared total never exceeds the limit, at the cost of a process refusing a little early.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private lastSweep = 0;

  constructor(
    private readonly sql: Sql,
    private readonly now: () => number = Date.now,
  ) {}

  async take(key: string, limit: number): Promise<RateDecision> {
    const now = this.now();
    const windowStart = now - (now % WINDOW_MS);
    const resetSeconds = Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000));
    let bucket = this.buckets.get(key);
    if (!bucket || bucket.windowStart !== windowStart) {
      bucket = { windowStart, local: 0, claimedTotal: 0, exhausted: false, pending: null };
      this.buckets.set(key, bucket);
      this.sweep(windowStart);
    }
    while (bucket.local === 0 && !bucket.exhausted) {
      if (!bucket.pending) bucket.pending = this.lease(key, bucket, limit).finally(() => (bucket!.pending = null));
      await bucket.pending;
    }
    if (bucket.local === 0) return { allowed: false, limit, remaining: 0, resetSeconds };
    bucket.local -= 1;
    const remaining = Math.max(0, limit - Math.min(limit, bucket.claimedTotal) + bucket.local);
    return { allowed: true, limit, remaining, resetSeconds };
  }

  private async lease(key: string, bucket: Bucket, limit: number): Promise<void> {
    const chunk = Math.min(100, Math.max(1, Math.floor(limit / 50)));
    const total = await claimRateLimitTokens(this.sql, key, new Date(bucket.windowStart), chunk);
    const granted = Math.max(0, Math.min(chunk, limit - (total - chunk)));
    bucket.claimedTotal = total;
    bucket.local += granted;
    if (granted < chunk) bucket.exhausted = true;
  }

  private sweep(windowStart: number): void {
    for (const [k, b] of this.buckets) if (b.windowStart < windowStart) this.buckets.delete(k);
    if (windowStart - this.lastSweep < WINDOW_MS) return;
    this.lastSweep = windowStart;
    void deleteRateLimitWindowsBefore(this.sql, new Date(windowStart - WINDOW_MS)).catch(() => {});
    // Per-account sign-in throttles whose failures are forgotten anyway go with the same sweep.
    void deleteQuietSignInThrottles(this.sql, SIGN_IN_THROTTLE.forgetAfterSeconds).catch(() => {});
  }
}
