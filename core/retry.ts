/**
 * The one retry policy of the code base: exponential backoff with jitter, capped, never sooner than the
 * receiver asked, and no retry of a failure that cannot succeed. Used in-process (`retry`) and by the
 * row-based outboxes (`nextAttempt`: alert deliveries, subscriber notices, mail), which store the next time.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  baseMs: number;
  maxMs: number;
  /** Half fixed, half random (default); false gives the plain doubling, for loops that must be predictable. */
  jitter?: boolean;
}

/** What a failure says about retrying it. */
export interface RetryHint {
  permanent?: boolean;
  retryAfterMs?: number;
}

/** The wait after the `attempt`-th failure (1-based): base·2^(attempt−1), jittered, at least retryAfterMs, at most maxMs. */
export function backoffDelay(attempt: number, p: Pick<RetryPolicy, "baseMs" | "maxMs" | "jitter">, retryAfterMs = 0): number {
  const exp = p.baseMs * 2 ** (Math.max(1, attempt) - 1);
  const wait = p.jitter === false ? exp : exp / 2 + (Math.random() * exp) / 2;
  return Math.min(p.maxMs, Math.max(retryAfterMs, wait));
}

/** After `attemptsSoFar` attempts, the last of which failed with `err`: give up, or try again after delayMs. */
export function nextAttempt(attemptsSoFar: number, err: RetryHint, p: RetryPolicy): { giveUp: true } | { giveUp: false; delayMs: number } {
  if (err.permanent || attemptsSoFar >= p.attempts) return { giveUp: true };
  return { giveUp: false, delayMs: backoffDelay(attemptsSoFar, p, err.retryAfterMs) };
}

export interface RetryOptions extends RetryPolicy {
  sleep?: (ms: number) => Promise<void>;
  /** A permanent failure is thrown at once. */
  isPermanent?: (err: unknown) => boolean;
  /** The wait the failure asked for (Retry-After). */
  retryAfterMs?: (err: unknown) => number | undefined;
  /** Called on every failure, the last one included, before the decision. */
  onFailure?: (err: unknown, attempt: number) => void;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Calls fn until it resolves; rethrows the last failure when it is permanent or the attempts are used up. */
export async function retry<T>(fn: (attempt: number) => Promise<T>, o: RetryOptions): Promise<T> {
  const sleep = o.sleep ?? defaultSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      o.onFailure?.(err, attempt);
      const next = nextAttempt(attempt, { permanent: o.isPermanent?.(err) ?? false, retryAfterMs: o.retryAfterMs?.(err) }, o);
      if (next.giveUp) throw err;
      await sleep(next.delayMs);
    }
  }
}
