import { describe, expect, it } from "bun:test";
import { channelSpecs } from "../../schemas/channel-types.ts";
import { channelConfigSchemas } from "../../schemas/channel-types.ts";
import { backoffDelay, channels, channelTypes, deliverWithRetry, maskSecret, restoreMaskedSecrets, validateChannelConfig } from "./registry.ts";
import { sampleEvent, testContext } from "./testing.ts";
import { type Channel, ChannelError } from "./types.ts";

/** A channel that fails with the given errors in turn, then succeeds. */
function flaky(failures: unknown[]): Channel<Record<string, never>> & { calls: number } {
  const ch = {
    type: "flaky",
    configSchema: channels.slack.configSchema,
    secretFields: [],
    calls: 0,
    async send() {
      const err = failures[ch.calls++];
      if (err) throw err;
      return { status: 200 };
    },
  };
  return ch;
}

function recordingContext() {
  const sleeps: number[] = [];
  return { sleeps, ctx: testContext({ clock: { now: () => new Date("2026-11-22T10:00:00Z"), sleep: async (ms) => void sleeps.push(ms) } }) };
}

const retryable = (status = 503) => new ChannelError(`answered HTTP ${status}`, { permanent: false, status });

describe("channel registry", () => {
  it("registers each channel under its own type, and every type has a test running the contract", async () => {
    for (const type of channelTypes) {
      expect(channels[type].type).toBe(type);
      const test = await Bun.file(`${import.meta.dir}/${type}/${type}.test.ts`).text();
      expect(test).toContain(`runChannelContract("${type}"`);
    }
  });

  it("lists every channel's own config schema in the browser-safe channel registry (schemas/channel-types.ts)", () => {
    expect(Object.keys(channelConfigSchemas).sort()).toEqual([...channelTypes].sort());
    for (const type of channelTypes) expect(channelConfigSchemas[type as keyof typeof channelConfigSchemas]).toBe(channels[type].configSchema as never);
  });

  it("sends with the config schema, secret fields and checks its type's spec declares", () => {
    expect(Object.keys(channels)).toEqual(Object.keys(channelSpecs));
    for (const type of channelTypes) {
      const spec = channelSpecs[type];
      expect(channels[type].configSchema).toBe(spec.config as never);
      expect([...channels[type].secretFields]).toEqual([...spec.secretFields]);
      expect(channels[type].validate as unknown).toBe((spec as { validate?: unknown }).validate);
    }
  });

  it("answers an unknown type with an issue on /type rather than throwing", () => {
    expect(validateChannelConfig("carrier-pigeon", {})).toEqual([{ path: "/type", message: expect.stringContaining("email, slack") }]);
  });

  it("runs the channel's own checks only after the schema passes", () => {
    expect(validateChannelConfig("slack", { url: "https://[" })).toEqual([{ path: "/url", message: "must be a valid http(s) URL" }]);
    expect(validateChannelConfig("slack", { url: "ftp://x" })).toEqual([{ path: "/url", message: expect.stringContaining("Slack incoming webhook URL") }]);
  });

  it("shows the last four characters only of a secret long enough to spare them", () => {
    expect(maskSecret("https://hooks.slack.com/services/T0/B0/abcd1234")).toBe("••••1234");
    expect(maskSecret("short-secret")).toBe("••••cret");
    expect(maskSecret("tiny")).toBe("••••");
  });

  it("keeps stored secrets when the client sends their masks back and takes new values otherwise", () => {
    const stored = { url: "https://example.com/h", secret: "whsec_0123456789abcdef", headers: { Authorization: "Bearer token-1234567", "X-Team": "ops" } };
    const incoming = { url: "https://example.com/h2", secret: "••••cdef", headers: { Authorization: "Bearer new-token-0000", "X-Team": "••••" } };
    expect(restoreMaskedSecrets("webhook", incoming, stored)).toEqual({
      url: "https://example.com/h2",
      secret: "whsec_0123456789abcdef",
      headers: { Authorization: "Bearer new-token-0000", "X-Team": "ops" },
    });
    expect(restoreMaskedSecrets("webhook", { url: "u", secret: "••••zzzz" }, stored)).toEqual({ url: "u", secret: "••••zzzz" });
    expect(restoreMaskedSecrets("webhook", { url: "u" }, stored)).toEqual({ url: "u" });
  });
});

describe("deliverWithRetry", () => {
  it("retries retryable failures with growing, jittered delays and records every attempt", async () => {
    const { ctx, sleeps } = recordingContext();
    const channel = flaky([retryable(500), retryable(502), retryable(503)]);
    const outcome = await deliverWithRetry(channel, sampleEvent(), {}, ctx, { attempts: 4, baseDelayMs: 100 });
    expect(outcome.ok).toBe(true);
    expect(outcome.receipt).toEqual({ status: 200 });
    expect(outcome.attempts.map(({ attempt, ok, status, permanent }) => ({ attempt, ok, status, permanent }))).toEqual([
      { attempt: 1, ok: false, status: 500, permanent: false },
      { attempt: 2, ok: false, status: 502, permanent: false },
      { attempt: 3, ok: false, status: 503, permanent: false },
      { attempt: 4, ok: true, status: 200, permanent: undefined },
    ]);
    expect(outcome.attempts[0]).toMatchObject({ at: "2026-11-22T10:00:00.000Z", error: "answered HTTP 500" });
    expect(sleeps).toHaveLength(3);
    sleeps.forEach((ms, i) => {
      expect(ms).toBeGreaterThanOrEqual(50 * 2 ** i);
      expect(ms).toBeLessThanOrEqual(100 * 2 ** i);
    });
  });

  it("stops at the first permanent failure without sleeping", async () => {
    const { ctx, sleeps } = recordingContext();
    const channel = flaky([new ChannelError("answered HTTP 404", { permanent: true, status: 404 })]);
    const outcome = await deliverWithRetry(channel, sampleEvent(), {}, ctx);
    expect(outcome).toMatchObject({ ok: false, error: { permanent: true, status: 404 } });
    expect(outcome.attempts).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(channel.calls).toBe(1);
  });

  it("gives up after the last attempt and returns the last error", async () => {
    const { ctx, sleeps } = recordingContext();
    const outcome = await deliverWithRetry(flaky([retryable(), retryable(), retryable(504)]), sampleEvent(), {}, ctx, { attempts: 3, baseDelayMs: 10 });
    expect(outcome).toMatchObject({ ok: false, error: { status: 504 } });
    expect(outcome.attempts).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
  });

  it("waits at least as long as the receiver asked, but no longer than the cap", async () => {
    const { ctx, sleeps } = recordingContext();
    const slowDown = (ms: number) => new ChannelError("answered HTTP 429", { permanent: false, status: 429, retryAfterMs: ms });
    await deliverWithRetry(flaky([slowDown(5_000), slowDown(600_000)]), sampleEvent(), {}, ctx, { baseDelayMs: 10, maxDelayMs: 30_000 });
    expect(sleeps).toEqual([5_000, 30_000]);
  });

  it("treats an unexpected exception from a channel as a retryable failure", async () => {
    const { ctx } = recordingContext();
    const outcome = await deliverWithRetry(flaky([new TypeError("x is undefined")]), sampleEvent(), {}, ctx, { baseDelayMs: 1 });
    expect(outcome.ok).toBe(true);
    expect(outcome.attempts[0]).toMatchObject({ ok: false, permanent: false, error: "unexpected error: x is undefined" });
  });

  it("computes exponential delays within the jitter band", () => {
    for (let attempt = 1; attempt <= 5; attempt++) {
      const d = backoffDelay(attempt, 1000, 60_000);
      expect(d).toBeGreaterThanOrEqual(500 * 2 ** (attempt - 1));
      expect(d).toBeLessThanOrEqual(Math.min(60_000, 1000 * 2 ** (attempt - 1)));
    }
  });
});
