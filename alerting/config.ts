import { type Static, Type } from "@sinclair/typebox";
import { commonEnv, metricsEnv } from "../core/config/common.ts";
import { EnvBool, parseEnv } from "../core/config/parse-env.ts";
import { smtpEnv } from "../core/config/smtp.ts";

export const alertingEnv = Type.Object({
  ...commonEnv,
  ...smtpEnv,
  ...metricsEnv,
  PUBLIC_BASE_URL: Type.String({ default: "http://127.0.0.1:3000", pattern: "^https?://", description: "external URL of the dashboard, for links in alerts" }),
  ALLOW_PRIVATE_IPS: EnvBool(false, "let alert channels reach private and loopback addresses (self-hosting)"),
  ALERTING_POLL_MS: Type.Integer({ minimum: 10, maximum: 60_000, default: 500, description: "dispatcher poll interval in ms, 10-60000" }),
  ALERTING_LEASE_MS: Type.Integer({ minimum: 100, maximum: 3_600_000, default: 60_000, description: "how long a claimed delivery is held before another dispatcher may retry it, in ms" }),
  ALERTING_MAX_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 50, default: 6, description: "delivery attempts before a delivery is marked failed, 1-50" }),
  ALERTING_RETRY_BASE_MS: Type.Integer({ minimum: 1, default: 2000, description: "first retry delay in ms (doubles per attempt, with jitter)" }),
  ALERTING_CHANNEL_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 120_000, default: 10_000, description: "limit of one delivery attempt in ms" }),
  ALERTING_RUNNER_SWEEP_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 10_000, description: "how often runners that went offline or came back are announced in the in-app feed, in ms" }),
  /** Crash tests only: the process kills itself after claiming its first delivery, before sending it. */
  ALERTING_TEST_CRASH_BEFORE_SEND: EnvBool(false, "testing only: SIGKILL this process after claiming the first delivery, before sending it"),
});

export type AlertingConfig = Static<typeof alertingEnv>;
export const loadAlertingConfig = (env: Record<string, string | undefined>): AlertingConfig => parseEnv(alertingEnv, env);
