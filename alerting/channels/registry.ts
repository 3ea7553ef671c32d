import { channelTypes, isChannelType, type ChannelType } from "../../schemas/channel-types.ts";
import { channels } from "./send-registry.gen.ts";
import { type AlertEvent, type Channel, type ChannelContext, ChannelError, type DeliveryReceipt } from "./types.ts";

/** The senders are generated from schemas/channel-types.ts (scripts/gen-registries.ts); validation and masking live in alerting/service/channel-config.ts. */
export { channels, channelTypes, isChannelType, type ChannelType };
export { maskSecret, maskSecrets, restoreMaskedSecrets, validateChannelConfig } from "../service/channel-config.ts";

export type ChannelConfig<T extends ChannelType> = Parameters<(typeof channels)[T]["send"]>[1];

export interface DeliveryAttempt {
  /** 1-based. */
  attempt: number;
  ok: boolean;
  at: string;
  durationMs: number;
  status?: number;
  error?: string;
  permanent?: boolean;
}

export interface DeliveryOutcome {
  ok: boolean;
  receipt?: DeliveryReceipt;
  /** The last failure when ok is false. */
  error?: ChannelError;
  /** Every attempt, for alert history. */
  attempts: DeliveryAttempt[];
}

export interface RetryOptions {
  attempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
}

/** Exponential backoff with jitter (half fixed, half random), never sooner than the receiver asked. */
export function backoffDelay(attempt: number, baseDelayMs: number, maxDelayMs: number, retryAfterMs = 0): number {
  const exp = baseDelayMs * 2 ** (attempt - 1);
  return Math.min(maxDelayMs, Math.max(retryAfterMs, exp / 2 + (Math.random() * exp) / 2));
}

/** Sends until it succeeds, fails permanently, or runs out of attempts; returns every attempt. */
export async function deliverWithRetry<C>(
  channel: Channel<C>,
  event: AlertEvent,
  config: C,
  ctx: ChannelContext,
  { attempts = 4, baseDelayMs = 1000, maxDelayMs = 60_000 }: RetryOptions = {},
): Promise<DeliveryOutcome> {
  const log = { op: "alerting.deliver", channel: channel.type, kind: event.kind, dedupKey: event.dedupKey, delivery: event.idempotencyKey };
  const tried: DeliveryAttempt[] = [];
  for (let attempt = 1; ; attempt++) {
    const at = ctx.clock.now().toISOString();
    const started = performance.now();
    try {
      const receipt = await channel.send(event, config, ctx);
      tried.push({ attempt, ok: true, at, durationMs: Math.round(performance.now() - started), status: receipt.status });
      ctx.log.info({ ...log, attempt, status: receipt.status }, "delivered");
      return { ok: true, receipt, attempts: tried };
    } catch (err) {
      // A thrown non-ChannelError is a bug or an unexpected failure; one more try costs little.
      const error = err instanceof ChannelError ? err : new ChannelError(`unexpected error: ${(err as Error)?.message ?? String(err)}`, { permanent: false });
      const durationMs = Math.round(performance.now() - started);
      tried.push({ attempt, ok: false, at, durationMs, status: error.status, error: error.message, permanent: error.permanent });
      ctx.log.warn({ ...log, attempt, status: error.status, permanent: error.permanent, err: error.message }, "delivery failed");
      if (error.permanent || attempt >= attempts) return { ok: false, error, attempts: tried };
      await ctx.clock.sleep(backoffDelay(attempt, baseDelayMs, maxDelayMs, error.retryAfterMs));
    }
  }
}
