/** Test support for alerting tests: an organisation with a monitor, channels and rules, written straight to the database. */
import { SecretBox } from "../../core/crypto/secrets.ts";
import type { Sql } from "../../db/client.ts";
import { newId } from "../../core/ids.ts";
import type { CheckResultMessage, ResultStatus } from "../../schemas/messages/check-messages.ts";
import { insertAlertChannel } from "../../db/queries/alert-channels.ts";
import { type AlertRuleWrite, insertAlertRule } from "../../db/queries/alert-rules.ts";
import { insertMonitor } from "../../db/queries/monitors.ts";
import { makeOrg, TEST_SECRET_KEY } from "../../tests/support/api.ts";
import { silentLogger } from "../../core/log.ts";
import type { ChannelContext } from "../channels/index.ts";
import type { DispatcherDeps } from "../runtime/dispatcher.ts";
import { RuleCache } from "../runtime/rule-cache.ts";

export const testBox = new SecretBox(TEST_SECRET_KEY);

export async function alertingOrg(sql: Sql, plan = "business") {
  const org = await makeOrg(sql, plan);
  const orgId = org.org_id;
  return {
    orgId,
    async monitor(tags: string[] = [], name = "Checkout API", where: { regions?: string[]; runnerIds?: string[] } = {}) {
      const id = newId("mon");
      await insertMonitor(sql, orgId, id, {
        name,
        type: "http",
        config: { url: "https://shop.example/health" },
        secretsEnc: null,
        intervalSeconds: 60,
        timeoutMs: 10_000,
        regions: where.regions ?? ["eu-west"],
        runnerIds: where.runnerIds ?? [],
        tags,
        paused: false,
        heartbeatTokenHash: null,
        heartbeatTokenEnc: null,
      });
      return id;
    },
    async webhook(url: string, extra: Record<string, unknown> = {}) {
      const id = newId("ach");
      await insertAlertChannel(sql, orgId, id, { name: "hook", type: "webhook", configEnc: testBox.encrypt(JSON.stringify({ url, ...extra })), enabled: true, messageTemplate: null, timezone: "UTC", configKey: null });
      return id;
    },
    async channel(type: string, config: Record<string, unknown>) {
      const id = newId("ach");
      await insertAlertChannel(sql, orgId, id, { name: type, type, configEnc: testBox.encrypt(JSON.stringify(config)), enabled: true, messageTemplate: null, timezone: "UTC", configKey: null });
      return id;
    },
    async rule(over: Partial<AlertRuleWrite> & Pick<AlertRuleWrite, "channels">) {
      const id = newId("rule");
      await insertAlertRule(sql, orgId, id, {
        name: "Down",
        description: null,
        enabled: true,
        scope: { type: "all_monitors" },
        condition: { type: "status_change", to: ["down"] },
        confirmation: { consecutive_failures: 1, confirmation_regions: null },
        notifications: { on_recovery: true, recurring: false, recurring_interval_minutes: null },
        escalation_policy_id: null,
        ...over,
      });
      return id;
    },
  };
}

let seq = 0;
let lastAt = 0;
/**
 * A result checked now: times strictly increase from call to call but stay at the clock (one process runs every
 * test file, and `now + calls so far` drifted minutes into the future, ahead of times the database stamps).
 */
export function result(orgId: string, monitorId: string, status: ResultStatus, over: Partial<CheckResultMessage> = {}): CheckResultMessage {
  seq++;
  const at = (lastAt = Math.max(Date.now(), lastAt + 1));
  return {
    id: `${monitorId}.eu-west.${at}.${seq}`,
    org_id: orgId,
    monitor_id: monitorId,
    location: "eu-west",
    location_type: "region",
    scheduled_at: at,
    checked_at: at,
    status,
    duration_ms: status === "up" ? 120 : 5000,
    error: status === "up" ? null : "connect ECONNREFUSED",
    data: {},
    ...over,
  };
}

export async function until<T>(f: () => Promise<T | undefined | false | null> | T | undefined | false | null, timeoutMs = 15_000, what = "condition"): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

/** A dispatcher over loopback channels with short retries, for tests that run its passes by hand on a simulated clock. */
export function testDispatcher(sql: Sql, channelCtx: ChannelContext, over: Partial<DispatcherDeps> = {}): DispatcherDeps {
  return {
    sql,
    box: testBox,
    log: silentLogger,
    rules: new RuleCache(sql, silentLogger),
    channelCtx,
    publicBaseUrl: "https://watchpost.test",
    leaseMs: 10_000,
    maxAttempts: 3,
    retryBaseMs: 10,
    retryMaxMs: 10,
    ...over,
  };
}
