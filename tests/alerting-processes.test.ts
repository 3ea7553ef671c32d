/**
 * Several alerting processes on one database and one JetStream: every notification goes out once,
 * and timers (escalation delays) are rows that a process started later picks up.
 */
import { afterAll, beforeAll, expect, it } from "bun:test";
import { type HttpReceiver, startHttpReceiver } from "../alerting/channels/testing.ts";
import { loadAlertingConfig } from "../alerting/config.ts";
import { startAlertingRole } from "../alerting/role.ts";
import { alertingOrg, result, testBox, until } from "../alerting/testing/fixtures.ts";
import { type Bus, connectNatsBus } from "../core/bus/index.ts";
import { createSql, type Sql } from "../db/client.ts";
import { resultSubject } from "../schemas/messages/check-messages.ts";
import { silentLogger } from "../core/log.ts";
import { createTestDatabase, type TestDatabase } from "./support/db.ts";
import { dropNatsStreams, NATS_URL, natsPrefix } from "./support/scheduling.ts";

let db: TestDatabase;
let receiver: HttpReceiver;
const prefix = natsPrefix("alrp");
const opened: { bus: Bus; sql: Sql; role: Awaited<ReturnType<typeof startAlertingRole>> }[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startHttpReceiver();
}, 60_000);
afterAll(async () => {
  for (const p of opened) await stopProcess(p);
  await dropNatsStreams([prefix]);
  await receiver.close();
  await db.drop();
}, 60_000);

/** One alerting "process": its own connection pool and bus connection, the role as `bun run alerting` starts it. */
async function startProcess() {
  const config = loadAlertingConfig({ DATABASE_URL: db.url, NATS_URL, NATS_PREFIX: prefix, ALLOW_PRIVATE_IPS: "true", ALERTING_POLL_MS: "50", LOG_LEVEL: "silent" });
  const sql = createSql(db.url, { max: 5 });
  const bus = await connectNatsBus({ url: NATS_URL, prefix, log: silentLogger });
  const role = await startAlertingRole({ config, sql, bus, box: testBox, log: silentLogger });
  const p = { bus, sql, role };
  opened.push(p);
  return p;
}
async function stopProcess(p: (typeof opened)[number]) {
  if (!opened.includes(p)) return;
  opened.splice(opened.indexOf(p), 1);
  await p.role.stop();
  await p.bus.close();
  await p.sql.end();
}

const deliveryIds = (path: string) => receiver.requests.filter((r) => r.path === path).map((r) => r.headers.get("webhook-id")!);

it("three processes deliver each of 40 alerts once, and a delayed channel's timers survive a restart of all of them", async () => {
  const o = await alertingOrg(db.sql);
  const now = await o.webhook(`${receiver.url}/now`);
  const later = await o.webhook(`${receiver.url}/later`);
  await o.rule({ channels: [{ channel_id: now, delay_minutes: 0 }, { channel_id: later, delay_minutes: 1 }] });
  const monitors = await Promise.all(Array.from({ length: 40 }, (_, i) => o.monitor([], `m${i}`)));
  const procs = [await startProcess(), await startProcess(), await startProcess()];

  const publisher = await connectNatsBus({ url: NATS_URL, prefix, log: silentLogger });
  try {
    const t = Date.now();
    for (const [i, mon] of monitors.entries()) {
      await publisher.publishResult(resultSubject(o.orgId, mon), result(o.orgId, mon, "up", { checked_at: t + i }));
      await publisher.publishResult(resultSubject(o.orgId, mon), result(o.orgId, mon, "down", { checked_at: t + 1000 + i }));
    }
  } finally {
    await publisher.close();
  }
  await until(() => deliveryIds("/now").length >= 40, 20_000, "40 alerts");
  await Bun.sleep(1500); // time for any duplicate to arrive
  expect(deliveryIds("/now")).toHaveLength(40);
  expect(new Set(deliveryIds("/now")).size).toBe(40);
  expect(deliveryIds("/later")).toHaveLength(0);
  const [{ n }] = await db.sql`select count(*)::int as n from alert_states where org_id = ${o.orgId} and firing and next_due_at is not null`;
  expect(n).toBe(40);

  // Every process stops; while they are down, the one-minute delay runs out.
  for (const p of procs) await stopProcess(p);
  await db.sql`
    update alert_states set
      state = jsonb_set(state, '{machine,firedAt}', to_jsonb((state->'machine'->>'firedAt')::bigint - 61000)),
      fired_at = fired_at - interval '61 seconds', next_due_at = next_due_at - interval '61 seconds'
    where org_id = ${o.orgId}`;
  await Promise.all([startProcess(), startProcess()]);
  await until(() => deliveryIds("/later").length >= 40, 20_000, "40 escalations");
  await Bun.sleep(1500);
  expect(deliveryIds("/later")).toHaveLength(40);
  expect(new Set(deliveryIds("/later")).size).toBe(40);
  expect(deliveryIds("/later").every((id) => id.endsWith(`:${later}:escalation:1`))).toBe(true);
  expect(deliveryIds("/now")).toHaveLength(40);
  const history = await db.sql`select kind, count(*)::int as n from alert_history where org_id = ${o.orgId} and status = 'sent' group by kind order by kind`;
  expect(history.map((h) => `${h.kind}:${h.n}`)).toEqual(["alert:40", "escalation:40"]);
}, 90_000);
