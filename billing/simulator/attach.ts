import type { Sql } from "../../db/client.ts";
import type { Logger } from "../../core/log.ts";
import { listenError } from "../../core/process/listen-error.ts";
import { rememberedPort, rememberPort } from "../../core/process/remembered-ports.ts";
import type { ProviderConfig } from "../provider/from-config.ts";
import { simulatorPrices } from "./prices.ts";
import { type BillingSimulator, startBillingSimulator } from "./server.ts";

const SIM_SECRET = "sim-webhook-secret";

/**
 * With BILLING_SIMULATOR=on (development, all-in-one), starts the provider simulator in-process and
 * returns the config pointing the Paddle adapter at it; `attach` sends its webhooks to the API once listening.
 */
export async function maybeStartSimulator<C extends ProviderConfig & { BILLING_SIMULATOR: boolean; BILLING_SIM_PORT: number; PUBLIC_BASE_URL?: string }>(
  config: C,
  sql: Sql,
  log: Logger,
  { movableIn }: { movableIn?: string } = {},
): Promise<{ config: C; attach(apiUrl: string): void; stop(): Promise<void>; now?: () => Date }> {
  if (!config.BILLING || !config.BILLING_SIMULATOR) return { config, attach() {}, async stop() {} };
  const prices = await simulatorPrices(sql);
  const start = (port: number) => startBillingSimulator({ port, webhookUrl: "http://127.0.0.1:9/", secret: SIM_SECRET, prices });
  const port = (movableIn && rememberedPort(movableIn, "BILLING_SIM_PORT")) || config.BILLING_SIM_PORT;
  let sim: BillingSimulator;
  try {
    sim = start(port);
  } catch (err) {
    if (!movableIn || (err as { code?: string })?.code !== "EADDRINUSE") return listenError("BILLING_SIM_PORT", port)(err);
    // Another instance on this machine has it: take a free port, and keep it for the next start.
    sim = start(0);
    log.warn({ op: "billing.simulator", taken: port, url: sim.url }, "billing simulator port taken by another process: using a free one, remembered in DATA_DIR/ports.json");
  }
  if (movableIn) rememberPort(movableIn, "BILLING_SIM_PORT", Number(new URL(sim.url).port));
  log.warn({ op: "billing.simulator", url: sim.url }, "payment provider SIMULATOR in use: no real payments (admin endpoints under /sim/)");
  return {
    config: { ...config, PADDLE_API_URL: sim.url, PADDLE_API_KEY: "sim", PADDLE_WEBHOOK_SECRETS: SIM_SECRET },
    attach: (apiUrl) => {
      sim.setWebhookUrl(`${apiUrl}/api/v1/billing/webhooks/paddle`);
      // After Pay on the simulated hosted checkout, the browser comes back to the dashboard's billing screen.
      sim.setReturnUrl(`${config.PUBLIC_BASE_URL ?? apiUrl}/billing`);
    },
    stop: () => sim.stop(),
    // Billing jobs follow the simulator's clock, so POST /sim/advance also moves grace periods and period ends.
    now: () => sim.state.now(),
  };
}

/**
 * The simulator's clock, read from its GET /sim/state, for a process that did not start it (a scheduler in
 * scaled mode with BILLING_SIMULATOR): billing jobs then follow POST /sim/advance as in the all-in-one.
 * Falls back to real time when the simulator does not answer.
 */
export function simulatorClock(simUrl: string, fetcher: typeof fetch = fetch): () => Promise<Date> {
  return async () => {
    try {
      const res = await fetcher(`${simUrl.replace(/\/$/, "")}/sim/state`, { signal: AbortSignal.timeout(5_000) });
      const body = (await res.json()) as { now?: string };
      const at = body.now ? Date.parse(body.now) : Number.NaN;
      return Number.isNaN(at) ? new Date() : new Date(at);
    } catch {
      return new Date();
    }
  };
}

/** The webhook secret the simulator signs with (the first of PADDLE_WEBHOOK_SECRETS it is given). */
export const SIMULATOR_WEBHOOK_SECRET = SIM_SECRET;
