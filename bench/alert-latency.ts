/**
 * Alerting figures on a real PostgreSQL (TEST_DATABASE_URL) and loopback webhook receiver:
 *  1. latency from a failing result published on RESULTS to the webhook receiving the alert,
 *     p50/p99 (target p99 < 500 ms), on the in-process bus and on NATS (NATS_URL, if reachable);
 *  2. results evaluated per second with 1,000 rules over 10,000 monitors (target ≥ 20,000/s).
 * Usage: bun bench/alert-latency.ts [alerts=300] [results=100000]
 */
import { createChannelContext } from "../alerting/channels/index.ts";
import { evaluateResults } from "../alerting/runtime/evaluate.ts";
import { RuleCache } from "../alerting/runtime/rule-cache.ts";
import { startAlerting } from "../alerting/runtime/start.ts";
import { alertingOrg, result, testBox } from "../alerting/testing/fixtures.ts";
import { type Bus, connectNatsBus, createMemoryBus } from "../core/bus/index.ts";
import type { Sql } from "../db/client.ts";
import { newId } from "../core/ids.ts";
import { resultSubject } from "../schemas/messages/check-messages.ts";
import { silentLogger } from "../core/log.ts";
import { createTestDatabase } from "../tests/support/db.ts";
import { dropNatsStreams, natsPrefix } from "../tests/support/scheduling.ts";
import { pct } from "./lib/proc.ts";
import { startWebhookReceiver } from "./lib/webhook-receiver.ts";

const ALERTS = Number(process.argv[2] ?? 300);
const RESULTS = Number(process.argv[3] ?? 100_000);
const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222";

async function latency(sql: Sql, label: string, bus: Bus): Promise<void> {
  const receiver = startWebhookReceiver();
  const arrived = receiver.alerts;
  await bus.ensureTopology({ resultDurables: [{ name: "alerting" }] });
  const alerting = await startAlerting({
    sql,
    bus,
    box: testBox,
    log: silentLogger,
    channelCtx: createChannelContext({ publicBaseUrl: "http://bench", allowPrivateAddresses: true }),
    publicBaseUrl: "http://bench",
    options: { pollMs: 200 },
  });
  const o = await alertingOrg(sql, "unlimited");
  const ch = await o.webhook(receiver.url);
  await o.rule({ channels: [{ channel_id: ch, delay_minutes: 0 }] });
  const monitors = await Promise.all(Array.from({ length: ALERTS }, (_, i) => o.monitor([], `m${i}`)));
  const samples: number[] = [];
  for (const mon of monitors) {
    const t0 = performance.now();
    await bus.publishResult(resultSubject(o.orgId, mon), result(o.orgId, mon, "down"));
    while (!arrived.has(mon)) {
      if (performance.now() - t0 > 10_000) throw new Error(`no alert for ${mon} within 10 s`);
      await Bun.sleep(1);
    }
    samples.push(arrived.get(mon)! - t0);
  }
  await alerting.stop();
  receiver.stop();
  samples.sort((a, b) => a - b);
  console.log(
    `${label.padEnd(28)} alerts ${samples.length}  p50 ${pct(samples, 0.5).toFixed(1)} ms  p90 ${pct(samples, 0.9).toFixed(1)} ms  p99 ${pct(samples, 0.99).toFixed(1)} ms  max ${samples.at(-1)!.toFixed(1)} ms`,
  );
}

async function throughput(sql: Sql): Promise<void> {
  const o = await alertingOrg(sql, "unlimited");
  const channels = await Promise.all(Array.from({ length: 10 }, (_, i) => o.webhook(`http://127.0.0.1:9/ch${i}`)));
  const monitorIds = Array.from({ length: 10_000 }, () => newId("mon"));
  const tagOf = (i: number) => `t${i % 100}`;
  await sql`
    insert into monitors (id, org_id, name, type, config, interval_seconds, timeout_ms, tags)
    select m.id, ${o.orgId}, m.name, 'http', '{"url":"https://x.example"}', 60, 10000, m.tags
    from jsonb_to_recordset(${sql.json(monitorIds.map((id, i) => ({ id, name: `m${i}`, tags: [tagOf(i)] })) as never)}) as m(id text, name text, tags text[])`;
  const rules = Array.from({ length: 1000 }, (_, i) => {
    const scope = i < 10 ? { type: "all_monitors" } : i < 110 ? { type: "monitor", monitor_id: monitorIds[i * 37]! } : { type: "monitor_group", tag: `t${i % 100}` };
    const condition =
      i % 3 === 0 ? { type: "status_change", to: ["down", "timeout"] } : i % 3 === 1 ? { type: "metric_threshold", metric: "response_time", operator: "gt", threshold: 2000 } : { type: "ssl_expiry", days_before: 14 };
    return { id: newId("rule"), scope, condition, channels: [{ channel_id: channels[i % 10]!, delay_minutes: i % 2 === 0 ? 0 : 10 }] };
  });
  await sql`
    insert into alert_rules (id, org_id, name, scope, condition, confirmation, notifications, channels)
    select r.id, ${o.orgId}, r.id, r.scope, r.condition, '{"consecutive_failures":2,"confirmation_regions":null}', '{"on_recovery":true,"recurring":false,"recurring_interval_minutes":null}', r.channels
    from jsonb_to_recordset(${sql.json(rules as never)}) as r(id text, scope jsonb, condition jsonb, channels jsonb)`;
  const cache = new RuleCache(sql, silentLogger);
  const deps = { sql, rules: cache, publicBaseUrl: "http://bench" };
  const base = Date.now();
  const make = (i: number) =>
    result(o.orgId, monitorIds[i % monitorIds.length]!, i % 100 === 7 ? "down" : "up", {
      checked_at: base + i,
      duration_ms: i % 250 === 3 ? 2500 : 150,
      data: { ssl_days_remaining: 60 },
    });
  await evaluateResults(deps, Array.from({ length: 500 }, (_, i) => make(i))); // warm the cache
  const BATCH = Number(process.env.BATCH ?? 500);
  let evaluations = 0;
  let deliveries = 0;
  const t0 = performance.now();
  for (let start = 0; start < RESULTS; start += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, RESULTS - start) }, (_, j) => make(500 + start + j));
    const out = await evaluateResults(deps, batch);
    evaluations += out.evaluated;
    deliveries += out.deliveries;
  }
  const secs = (performance.now() - t0) / 1000;
  const [states] = await sql`select count(*)::int as n, count(*) filter (where firing)::int as firing from alert_states where org_id = ${o.orgId}`;
  console.log(
    `evaluation (batches of ${BATCH})  ${RESULTS} results in ${secs.toFixed(2)} s = ${Math.round(RESULTS / secs)} results/s, ` +
      `${Math.round(evaluations / secs)} rule evaluations/s (${(evaluations / RESULTS).toFixed(1)} rules per result), ` +
      `${deliveries} deliveries decided, ${states!.n} state rows (${states!.firing} firing)`,
  );
}

const db = await createTestDatabase();
try {
  console.log(`alerting bench: ${ALERTS} alerts for latency, ${RESULTS} results for throughput`);
  const memory = createMemoryBus({ log: silentLogger });
  await latency(db.sql, "memory bus → webhook", memory);
  await memory.close();
  const prefix = natsPrefix("abench");
  const nats = await connectNatsBus({ url: natsUrl, prefix, log: silentLogger }).catch(() => null);
  if (nats) {
    await latency(db.sql, "NATS JetStream → webhook", nats);
    await nats.close();
    await dropNatsStreams([prefix]);
  } else console.log(`NATS at ${natsUrl} not reachable; skipped`);
  await throughput(db.sql);
} finally {
  await db.drop();
}
process.exit(0);
