import { type Static, Type } from "@sinclair/typebox";
import { commonEnv, metricsEnv } from "../core/config/common.ts";
import { parseEnv } from "../core/config/parse-env.ts";

export const schedulerEnv = Type.Object({
  ...commonEnv,
  SCHEDULER_BACKFILL_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 600,
    default: 60,
    description: "how far back a new leader publishes due checks the previous one missed, 0-600 seconds",
  }),
  SCHEDULER_LOCK_RETRY_MS: Type.Integer({ minimum: 200, maximum: 10_000, default: 1500, description: "how often a standby scheduler tries to take over, 200-10000 ms" }),
  ...metricsEnv,
});

export type SchedulerConfig = Static<typeof schedulerEnv>;

export const loadSchedulerConfig = (env: Record<string, string | undefined>): SchedulerConfig => parseEnv(schedulerEnv, env);
