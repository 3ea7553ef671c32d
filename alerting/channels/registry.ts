import { channelTypes, isChannelType, type ChannelType } from "../../schemas/channel-types.ts";
import { channels } from "./send-registry.gen.ts";
import { backoffDelay as coreBackoffDelay, retry } from "../../core/retry.ts";
import { type AlertEvent, type BoundTemplate, type Channel, type ChannelContext, ChannelError, type DeliveryReceipt } from "./types.ts";

/** The senders are generated from schemas/channel-types.ts (scripts/gen-registries.ts); validation and masking live in alerting/service/channel-config.ts. */
export { channels, channelTypes, isChannelType, type ChannelType };
export { maskSecret, maskSecrets, restoreMaskedSecrets, validateChannelConfig } from "../service/channel-config.ts";

export type ChannelConfig<T extends ChannelType> = Parameters<(typeof channels)[T]["send"]>[1];

interface DeliveryAttempt {
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
  /** The channel's message template bound to this event, if it has one. */
  template?: BoundTemplate;
}

/** Exponential backoff with jitter (half fixed, half random), never sooner than the receiver asked (core/retry). */
export function backoffDelay(attempt: number, baseDelayMs: number, maxDelayMs: number, retryAfterMs = 0): number {
  return coreBackoffDelay(attempt, { baseMs: baseDelayMs, maxMs: maxDelayMs }, retryAfterMs);
}

/** A thrown non-ChannelError is a bug or an unexpected failure; one more try costs little. */
const asChannelError = (err: unknown): ChannelError =>
  err instanceof ChannelError ? err : new ChannelError(`unexpected error: ${(err as Error)?.message ?? String(err)}`, { permanent: false });

/** Sends until it succeeds, fails permanently, or runs out of attempts (core/retry); returns every attempt. */
export async function deliverWithRetry<C>(
  channel: Channel<C>,
  event: AlertEvent,
  config: C,
  ctx: ChannelContext,
  { attempts = 4, baseDelayMs = 1000, maxDelayMs = 60_000, template }: RetryOptions = {},
): Promise<DeliveryOutcome> {
  const log = { op: "alerting.deliver", channel: channel.type, kind: event.kind, dedupKey: event.dedupKey, delivery: event.idempotencyKey };
  const tried: DeliveryAttempt[] = [];
  let at = "";
  let started = 0;
  try {
    const receipt = await retry(
      async (attempt) => {
        at = ctx.clock.now().toISOString();
        started = performance.now();
        const receipt = await channel.send(event, config, ctx, template);
        tried.push({ attempt, ok: true, at, durationMs: Math.round(performance.now() - started), status: receipt.status });
        ctx.log.info({ ...log, attempt, status: receipt.status }, "delivered");
        return receipt;
      },
      {
        attempts,
        baseMs: baseDelayMs,
        maxMs: maxDelayMs,
        sleep: (ms) => ctx.clock.sleep(ms),
        isPermanent: (err) => asChannelError(err).permanent,
        retryAfterMs: (err) => asChannelError(err).retryAfterMs,
        onFailure: (err, attempt) => {
          const error = asChannelError(err);
          tried.push({ attempt, ok: false, at, durationMs: Math.round(performance.now() - started), status: error.status, error: error.message, permanent: error.permanent });
          ctx.log.warn({ ...log, attempt, status: error.status, permanent: error.permanent, err: error.message }, "delivery failed");
        },
      },
    );
    return { ok: true, receipt, attempts: tried };
  } catch (err) {
    return { ok: false, error: asChannelError(err), attempts: tried };
  }
}
