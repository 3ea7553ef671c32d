import { Value } from "@sinclair/typebox/value";
import type { ValidationIssue } from "../../core/errors.ts";
import { backoffDelay as coreBackoffDelay, retry } from "../../core/retry.ts";
import { discord } from "./discord/discord.ts";
import { email } from "./email/email.ts";
import { opsgenie } from "./opsgenie/opsgenie.ts";
import { pagerduty } from "./pagerduty/pagerduty.ts";
import { slack } from "./slack/slack.ts";
import { teams } from "./teams/teams.ts";
import { telegram } from "./telegram/telegram.ts";
import { type AlertEvent, type Channel, type ChannelContext, ChannelError, type DeliveryReceipt } from "./types.ts";
import { webhook } from "./webhook/webhook.ts";

export type ChannelType = "email" | "slack" | "discord" | "teams" | "telegram" | "webhook" | "pagerduty" | "opsgenie";

/** The one place a channel type is looked up; a type missing here fails type-checking. */
export const channels = { email, slack, discord, teams, telegram, webhook, pagerduty, opsgenie } satisfies Record<ChannelType, Channel<any>>;

export const channelTypes = Object.keys(channels) as ChannelType[];
export type ChannelConfig<T extends ChannelType> = Parameters<(typeof channels)[T]["send"]>[1];
export const isChannelType = (type: string): type is ChannelType => Object.hasOwn(channels, type);

/** Schema errors (first per path), then the channel's own checks; empty when the config is good. */
export function validateChannelConfig(type: string, config: unknown): ValidationIssue[] {
  if (!isChannelType(type)) return [{ path: "/type", message: `must be one of ${channelTypes.join(", ")}` }];
  const channel: Channel<unknown> = channels[type];
  const issues = new Map<string, string>();
  for (const e of Value.Errors(channel.configSchema, config)) {
    // TypeBox's messages name the rule ("Expected string to match ..."); the description says what was meant.
    const hint = (e.schema as { description?: string }).description;
    if (!issues.has(e.path)) issues.set(e.path, hint ? `${e.message} (${hint})` : e.message);
  }
  if (issues.size > 0) return [...issues].map(([path, message]) => ({ path: path || "/", message }));
  return channel.validate?.(config) ?? [];
}

const MASK = "••••";
/** Shows the last 4 characters only of a secret long enough that they give nothing away. */
export const maskSecret = (value: string) => (value.length >= 12 ? `${MASK}${value.slice(-4)}` : MASK);

/** A secret field is a string or a record of strings (webhook headers); anything else is masked whole. */
const mapSecret = (value: unknown, f: (s: string, key?: string) => string): unknown =>
  typeof value === "string"
    ? f(value)
    : value && typeof value === "object" && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === "string" ? f(v, k) : MASK]))
      : MASK;

/** The config as an API may show it: every secret field masked, the rest as stored. */
export function maskSecrets<C extends object>(type: ChannelType, config: C): C {
  const out = { ...config } as Record<string, unknown>;
  for (const field of channels[type].secretFields) if (out[field] !== undefined) out[field] = mapSecret(out[field], maskSecret);
  return out as C;
}

/**
 * For updates: a client that sends back a masked value it was shown means "unchanged", so that
 * value is replaced by the stored secret it masks. Any other value is a new secret and kept.
 */
export function restoreMaskedSecrets<C extends object>(type: ChannelType, incoming: C, stored: object): C {
  const out = { ...incoming } as Record<string, unknown>;
  const old = stored as Record<string, unknown>;
  for (const field of channels[type].secretFields) {
    const prev = old[field];
    if (out[field] === undefined) continue;
    out[field] = mapSecret(out[field], (s, key) => {
      const before = key === undefined ? prev : (prev as Record<string, unknown> | undefined)?.[key];
      return typeof before === "string" && s === maskSecret(before) ? before : s;
    });
  }
  return out as C;
}

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
  { attempts = 4, baseDelayMs = 1000, maxDelayMs = 60_000 }: RetryOptions = {},
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
        const receipt = await channel.send(event, config, ctx);
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
