import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { type ChannelConfig, type ChannelType, channels, deliverWithRetry, maskSecrets, restoreMaskedSecrets, validateChannelConfig } from "./registry.ts";
import { type ContractReceiver, sampleEvent, testContext } from "./testing.ts";
import { alertEventKinds, type Channel, ChannelError, type ChannelContext } from "./types.ts";

export interface ChannelContractOptions<T extends ChannelType, R extends ContractReceiver> {
  /** Starts a real receiver on loopback. */
  makeReceiver(): Promise<R>;
  /** A valid config pointing at that receiver, with every secret field filled in. */
  config(receiver: R): ChannelConfig<T>;
}

async function sendError(send: () => Promise<unknown>): Promise<ChannelError> {
  try {
    await send();
  } catch (err) {
    expect(err).toBeInstanceOf(ChannelError);
    return err as ChannelError;
  }
  throw new Error("expected the send to fail");
}

/** What every channel promises, run by each channel's own test against its own kind of receiver. */
export function runChannelContract<T extends ChannelType, R extends ContractReceiver>(type: T, options: ChannelContractOptions<T, R>): void {
  const channel = channels[type] as Channel<ChannelConfig<T>>;

  describe(`${type} channel contract`, () => {
    let receiver: R;
    let ctx: ChannelContext;
    let config: ChannelConfig<T>;
    beforeAll(async () => {
      receiver = await options.makeReceiver();
      ctx = testContext(receiver.ctx);
      config = options.config(receiver);
    });
    afterAll(() => receiver.close());

    it("delivers every event kind as exactly one message naming the monitor", async () => {
      for (const kind of alertEventKinds) {
        const before = receiver.messages.length;
        await channel.send(sampleEvent(kind), config, ctx);
        expect(receiver.messages.length).toBe(before + 1);
        expect(receiver.messages.at(-1)).toContain("mon_42");
      }
    });

    it("reports a server error from the receiver as a retryable ChannelError with the status", async () => {
      const status = receiver.failNext("retryable");
      const err = await sendError(() => channel.send(sampleEvent(), config, ctx));
      expect(err.permanent).toBe(false);
      expect(err.status).toBe(status);
      expect(err.message).toContain(String(status));
    });

    it("reports a rejection from the receiver as a permanent ChannelError with the status", async () => {
      const status = receiver.failNext("permanent");
      const err = await sendError(() => channel.send(sampleEvent(), config, ctx));
      expect(err.permanent).toBe(true);
      expect(err.status).toBe(status);
      expect(err.message).toContain(String(status));
    });

    it("retries after a server error and records both attempts", async () => {
      receiver.failNext("retryable");
      const outcome = await deliverWithRetry(channel, sampleEvent("reminder"), config, ctx, { attempts: 3, baseDelayMs: 5 });
      expect(outcome.ok).toBe(true);
      expect(outcome.attempts.map((a) => a.ok)).toEqual([false, true]);
      expect(outcome.attempts[0]!.permanent).toBe(false);
    });

    it("stops at the first permanent failure", async () => {
      receiver.failNext("permanent");
      const outcome = await deliverWithRetry(channel, sampleEvent(), config, ctx, { attempts: 3, baseDelayMs: 5 });
      expect(outcome.ok).toBe(false);
      expect(outcome.attempts).toHaveLength(1);
    });

    it("reports a receiver that is gone as retryable", async () => {
      const gone = await options.makeReceiver();
      const goneConfig = options.config(gone);
      const goneCtx = testContext(gone.ctx);
      await gone.close();
      const err = await sendError(() => channel.send(sampleEvent(), goneConfig, goneCtx));
      expect(err.permanent).toBe(false);
    });

    it("rejects an empty config and accepts the receiver's config", () => {
      const issues = validateChannelConfig(type, {});
      expect(issues.length).toBeGreaterThan(0);
      for (const issue of issues) expect(issue.path.startsWith("/") && issue.message.length > 0).toBe(true);
      expect(validateChannelConfig(type, config)).toEqual([]);
    });

    it("rejects unknown config keys", () => {
      expect(validateChannelConfig(type, { ...config, surprise: 1 }).length).toBeGreaterThan(0);
    });

    it("never shows a secret in full and restores it when the mask comes back unchanged", () => {
      const masked = maskSecrets(type, config) as Record<string, unknown>;
      const plain = config as Record<string, unknown>;
      const secretValues = channel.secretFields.flatMap((f) => {
        const v = plain[f];
        return typeof v === "string" ? [v] : v && typeof v === "object" ? Object.values(v).map(String) : [];
      });
      const shown = JSON.stringify(masked);
      for (const secret of secretValues) expect(shown).not.toContain(secret);
      for (const key of Object.keys(plain)) if (!channel.secretFields.includes(key)) expect(masked[key]).toEqual(plain[key]);
      expect(restoreMaskedSecrets(type, masked, config)).toEqual(config);
    });
  });
}
