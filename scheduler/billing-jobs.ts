import type { Logger } from "../core/log.ts";
import type { Sql } from "../db/client.ts";
import { startBillingJobs } from "../billing/jobs.ts";
import { providerFromConfig } from "../billing/provider/from-config.ts";
import type { BillingProvider } from "../billing/provider/types.ts";
import { SIMULATOR_WEBHOOK_SECRET, simulatorClock } from "../billing/simulator/attach.ts";
import type { SchedulerConfig } from "./config.ts";

/** What the leader's billing loop needs: the provider (null: BILLING=off or none configured) and its clock. */
export interface LeaderBillingOptions {
  provider: BillingProvider | null;
  /** The provider's clock (the billing simulator's); real time when unset. */
  now?: () => Date | Promise<Date>;
  intervalMs?: number;
}

/**
 * The billing options of a scheduler started on its own (`bun run scheduler`). With BILLING_SIMULATOR the
 * provider is the simulator at PADDLE_API_URL, and the jobs follow its clock (GET /sim/state).
 */
export function billingOptionsOf(config: SchedulerConfig): LeaderBillingOptions {
  if (!config.BILLING_SIMULATOR) return { provider: providerFromConfig(config) };
  const sim = { ...config, PADDLE_API_KEY: config.PADDLE_API_KEY ?? "sim", PADDLE_WEBHOOK_SECRETS: config.PADDLE_WEBHOOK_SECRETS ?? SIMULATOR_WEBHOOK_SECRET };
  return { provider: providerFromConfig(sim), now: simulatorClock(config.PADDLE_API_URL), intervalMs: 2_000 };
}

/**
 * Grace reminders and expiry, period ends and the suspension sweep run in the scheduler leader only, for
 * as long as it leads (jobs are rows claimed with SKIP LOCKED, so a hand-over loses none).
 */
export function startLeaderBillingJobs(sql: Sql, log: Logger, o: LeaderBillingOptions): { stop(): Promise<void> } {
  // Without a payment provider (self-hosted) the jobs only settle rows a billed past left; not news at start.
  if (o.provider) log.info({ op: "billing.jobs" }, "billing jobs running in this scheduler leader");
  else log.debug({ op: "billing.jobs" }, "billing jobs running in this scheduler leader, without a payment provider");
  return startBillingJobs({ sql, provider: o.provider, log, now: o.now, intervalMs: o.intervalMs ?? (o.now ? 2_000 : 30_000) });
}
