import type { Bus, ConsumerHandle } from "../../core/bus/index.ts";
import type { SecretBox } from "../../core/crypto/secrets.ts";
import { newId } from "../../core/ids.ts";
import type { Logger } from "../../core/log.ts";
import type { Sql } from "../../db/client.ts";
import { CHANNEL_TEST_QUEUE, CHANNEL_TEST_SUBJECT, type ChannelTestRequest, type TestSendResult } from "../../schemas/messages/channel-test.ts";
import { type AlertEvent, type Channel, type ChannelContext, type ChannelType, channels, deliverWithRetry } from "../channels/index.ts";
import { decryptChannelConfig, getChannelRow, templateSettingsOf } from "../service/alert-channels.ts";
import { bindTemplate } from "../service/message-template.ts";

export interface ChannelTestDeps {
  sql: Sql;
  bus: Bus;
  box: SecretBox;
  log: Logger;
  channelCtx: ChannelContext;
}

/** Sends a `test` event through the real channel (with retries) and reports every attempt. */
async function sendTestNotification(d: Omit<ChannelTestDeps, "bus" | "log">, req: ChannelTestRequest): Promise<TestSendResult> {
  const row = await getChannelRow(d.sql, req.orgId, req.channelId);
  const type = row.type as ChannelType;
  const config = decryptChannelConfig(d.box, row);
  const now = d.channelCtx.clock.now().toISOString();
  const testId = newId("test");
  const event: AlertEvent = {
    kind: "test",
    // Its own dedup key, so a paging tool never folds a test into a real incident.
    dedupKey: `test:${row.id}:${testId}`,
    idempotencyKey: `test:${row.id}:${testId}`,
    rule: { id: "test", name: "Test notification" },
    monitor: { id: "test", name: "Test monitor", type: "http" },
    region: "test",
    regionName: "test",
    status: "down",
    condition: "test notification",
    result: { duration_ms: 0 },
    startedAt: now,
    occurredAt: now,
    org: { id: req.orgId, name: req.orgName },
    // The dashboard screen of channels (it has no page per channel); a test has no monitor of its own.
    links: { monitor: `${d.channelCtx.publicBaseUrl}/alert-channels` },
  };
  const outcome = await deliverWithRetry(channels[type] as Channel<unknown>, event, config, d.channelCtx, {
    attempts: 2,
    baseDelayMs: 500,
    maxDelayMs: 2000,
    template: bindTemplate(event, templateSettingsOf(row), d.channelCtx.publicBaseUrl),
  });
  return { ok: outcome.ok, attempts: outcome.attempts, ...(outcome.error ? { error: outcome.error.message } : {}), ...(outcome.receipt?.providerId ? { provider_id: outcome.receipt.providerId } : {}) };
}

/** The alerting role answers the API's test-send requests: notifications leave only from here. */
export function startChannelTestServer(d: ChannelTestDeps): Promise<ConsumerHandle> {
  return d.bus.serve<ChannelTestRequest, TestSendResult>(CHANNEL_TEST_SUBJECT, { queue: CHANNEL_TEST_QUEUE }, async (req) => {
    const result = await sendTestNotification(d, req);
    d.log.info({ op: "alerting.channel-test", orgId: req.orgId, channelId: req.channelId, ok: result.ok }, "sent a test notification");
    return result;
  });
}
