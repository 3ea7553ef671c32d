import { describe, expect, it } from "bun:test";
import { backoffDelay, nextAttempt, retry } from "./retry.ts";

const policy = { attempts: 4, baseMs: 100, maxMs: 1000 };

describe("retry", () => {
  it("gives up at once on a permanent error", async () => {
    let calls = 0;
    const slept: number[] = [];
    const err = new Error("bad address");
    const run = retry(async () => {
      calls++;
      throw err;
    }, { ...policy, isPermanent: () => true, sleep: async (ms) => void slept.push(ms) });
    expect(run).rejects.toBe(err);
    await run.catch(() => {});
    expect(calls).toBe(1);
    expect(slept).toEqual([]);
    expect(nextAttempt(1, { permanent: true }, policy)).toEqual({ giveUp: true });
  });

  it("never retries sooner than Retry-After", () => {
    for (let i = 0; i < 50; i++) {
      const next = nextAttempt(1, { retryAfterMs: 700 }, policy);
      expect(next.giveUp).toBe(false);
      if (!next.giveUp) expect(next.delayMs).toBeGreaterThanOrEqual(700);
    }
  });

  it("stops after attempts", async () => {
    let calls = 0;
    const slept: number[] = [];
    await retry(async () => {
      calls++;
      throw new Error("down");
    }, { ...policy, jitter: false, sleep: async (ms) => void slept.push(ms) }).catch(() => {});
    expect(calls).toBe(4);
    expect(slept).toEqual([100, 200, 400]);
    expect(nextAttempt(4, {}, policy)).toEqual({ giveUp: true });
  });

  it("returns the first success and reports every failure", async () => {
    const failures: number[] = [];
    const value = await retry(async (attempt) => {
      if (attempt < 3) throw new Error(`try ${attempt}`);
      return "ok";
    }, { ...policy, sleep: async () => {}, onFailure: (_e, attempt) => failures.push(attempt) });
    expect(value).toBe("ok");
    expect(failures).toEqual([1, 2]);
  });

  it("caps the delay at maxMs", () => {
    for (let attempt = 1; attempt <= 12; attempt++) {
      const d = backoffDelay(attempt, policy);
      expect(d).toBeLessThanOrEqual(1000);
      expect(d).toBeGreaterThanOrEqual(Math.min(1000, (100 * 2 ** (attempt - 1)) / 2));
    }
    expect(backoffDelay(10, { ...policy, jitter: false }, 5000)).toBe(1000);
  });
});
