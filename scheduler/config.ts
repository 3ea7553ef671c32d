import { type Static, Type } from "@sinclair/typebox";
import { commonEnv, metricsEnv } from "../core/config/common.ts";
import { EnvBool, parseEnv } from "../core/config/parse-env.ts";

export const schedulerEnv = Type.Object({
  ...commonEnv,
  SCHEDULER_BACKFILL_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 600,
    default: 60,
    description: "how far back a new leader publishes due checks the previous one missed, 0-600 seconds",
  }),
  SCHEDULER_QUEUE_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 30,
    default: 5,
    description: "backpressure: seconds of work a job queue (a region's, a browser engine's of a region, a runner's) may hold beyond the checks its consumers run at once (past it due checks wait and the schedule slips), 1-30; keep it below the shortest interval",
  }),
  SCHEDULER_TICK_MS: Type.Integer({
    minimum: 0,
    maximum: 100,
    default: 10,
    description: "due checks are published on ticks of this many ms, 0-100 (0: each at its own due time); a check starts up to a tick late, by the same amount every time, and the checks of a tick go to the workers together",
  }),
  SCHEDULER_LOCK_RETRY_MS: Type.Integer({ minimum: 200, maximum: 10_000, default: 1500, description: "how often a standby scheduler tries to take over, 200-10000 ms" }),
  // The leader runs the billing jobs (grace periods, period ends): it talks to the payment provider.
  BILLING: EnvBool(true, "bill organisations through the payment provider; off gives every organisation the unlimited plan (self-hosting; set the same value as on the API)"),
  PADDLE_API_URL: Type.String({ pattern: "^https?://", default: "https://api.paddle.com", description: "payment provider API (Paddle Billing, its sandbox, or bun run billing-sim)" }),
  PADDLE_API_KEY: Type.Optional(Type.String({ minLength: 1, description: "payment provider API key; billing jobs leave the provider alone without it" })),
  PADDLE_WEBHOOK_SECRETS: Type.Optional(Type.String({ minLength: 1, description: "webhook signing secrets, comma-separated (the provider adapter is configured only with them)" })),
  BILLING_WEBHOOK_WINDOW_SECONDS: Type.Integer({ minimum: 10, default: 300, description: "accepted age of a webhook signature timestamp in seconds, at least 10" }),
  BILLING_SIMULATOR: EnvBool(false, "the payment provider is the billing simulator at PADDLE_API_URL; billing jobs follow its clock (development only)"),
  ...metricsEnv,
});

export type SchedulerConfig = Static<typeof schedulerEnv>;

export const loadSchedulerConfig = (env: Record<string, string | undefined>): SchedulerConfig => parseEnv(schedulerEnv, env);
