import type { Bus, ConsumerHandle } from "../../core/bus/index.ts";
import type { SecretBox } from "../../core/crypto/secrets.ts";
import type { Sql } from "../../db/client.ts";
import type { CheckResultMessage } from "../../schemas/messages/check-messages.ts";
import type { Logger } from "../../core/log.ts";
import type { Registry } from "prom-client";
import type { DeliveryRow } from "../../db/queries/alert-deliveries.ts";
import type { ChannelContext } from "../channels/index.ts";
import type { AlertBusEvent } from "../engine/decide.ts";
import { publishAlertEvents } from "../service/alert-events.ts";
import { closeWithdrawnStates, type DispatcherDeps, runDueDeliveries, runDueTimers } from "./dispatcher.ts";
import { evaluateResults } from "./evaluate.ts";
import { createAlertingMetrics } from "./metrics.ts";
import { RuleCache } from "./rule-cache.ts";

export const ALERTING_DURABLE = "alerting";

export interface AlertingOptions {
  /** Durable consumer name; every alerting process shares it. */
  durable?: string;
  batchSize?: number;
  maxWaitMs?: number;
  /** How often the dispatcher looks for due timers and deliveries when nothing wakes it. */
  pollMs?: number;
  leaseMs?: number;
  maxAttempts?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  beforeSend?: (d: DeliveryRow) => void;
  /** How often alerts at locations their monitors no longer check from are looked for and closed. */
  withdrawnEveryMs?: number;
}

/** A location taken off a monitor closes its alerts there within this long (one query over the firing states). */
const WITHDRAWN_EVERY_MS = 10_000;

export interface AlertingDeps {
  sql: Sql;
  bus: Bus;
  box: SecretBox;
  log: Logger;
  channelCtx: ChannelContext;
  publicBaseUrl: string;
  options?: AlertingOptions;
  /** Process registry for the alerting metrics; none when omitted. */
  registry?: Registry;
}

/** The alerting role: the `alerting` results consumer plus the dispatcher loop. */
export async function startAlerting(deps: AlertingDeps): Promise<{ stop(): Promise<void>; wake(): void }> {
  const o = deps.options ?? {};
  const rules = new RuleCache(deps.sql, deps.log);
  await rules.listen();
  const publish = (events: AlertBusEvent[]) => publishAlertEvents(deps.bus, events);
  const metrics = deps.registry ? createAlertingMetrics(deps.registry) : undefined;
  const dispatcher: DispatcherDeps = {
    sql: deps.sql,
    box: deps.box,
    log: deps.log,
    rules,
    channelCtx: deps.channelCtx,
    publicBaseUrl: deps.publicBaseUrl,
    leaseMs: o.leaseMs ?? 60_000,
    maxAttempts: o.maxAttempts ?? 6,
    retryBaseMs: o.retryBaseMs ?? 2_000,
    retryMaxMs: o.retryMaxMs ?? 300_000,
    beforeSend: o.beforeSend,
    metrics,
  };

  let running = true;
  let wakeUp: (() => void) | null = null;
  const wake = () => wakeUp?.();
  let withdrawnAt = 0;
  const loop = (async () => {
    while (running) {
      try {
        if (Date.now() - withdrawnAt >= (o.withdrawnEveryMs ?? WITHDRAWN_EVERY_MS)) {
          withdrawnAt = Date.now();
          publish((await closeWithdrawnStates(dispatcher)).busEvents);
        }
        const timers = await runDueTimers(dispatcher);
        publish(timers.busEvents);
        const sent = await runDueDeliveries(dispatcher);
        if (timers.applied > 0 || sent > 0) continue;
      } catch (err) {
        deps.log.error({ op: "alerting.loop", err }, "dispatcher pass failed");
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, o.pollMs ?? 500);
        wakeUp = () => {
          clearTimeout(t);
          resolve();
        };
      });
      wakeUp = null;
    }
  })();

  const consumer: ConsumerHandle = await deps.bus.consumeResults<CheckResultMessage>(
    o.durable ?? ALERTING_DURABLE,
    { batchSize: o.batchSize ?? 500, maxWaitMs: o.maxWaitMs ?? 20 },
    async (batch) => {
      const out = await evaluateResults({ sql: deps.sql, rules, publicBaseUrl: deps.publicBaseUrl }, batch.map((d) => d.data));
      metrics?.evaluated.inc(batch.length);
      publish(out.busEvents);
      if (out.deliveries > 0) wake();
    },
  );

  return {
    wake,
    async stop() {
      await consumer.stop();
      running = false;
      wake();
      await loop;
      await rules.close();
    },
  };
}
