/**
 * A crash between "decided to send" and "sent" loses nothing and sends once: the alerting
 * process is SIGKILLed after claiming its first delivery, restarted, and the loopback
 * webhook receiver sees the alert exactly once.
 */
import { afterAll, beforeAll, expect, it } from "bun:test";
import { type HttpReceiver, startHttpReceiver } from "../alerting/channels/testing.ts";
import { alertingOrg, result, until } from "../alerting/testing/fixtures.ts";
import { type Bus, connectNatsBus } from "../core/bus/index.ts";
import { resultSubject } from "../schemas/messages/check-messages.ts";
import { silentLogger } from "../core/log.ts";
import { TEST_SECRET_KEY } from "./support/api.ts";
import { createTestDatabase, type TestDatabase } from "./support/db.ts";
import { dropNatsStreams, NATS_URL, natsPrefix } from "./support/scheduling.ts";

let db: TestDatabase;
let bus: Bus;
let receiver: HttpReceiver;
const prefix = natsPrefix("alrt");

beforeAll(async () => {
  db = await createTestDatabase();
  bus = await connectNatsBus({ url: NATS_URL, prefix, log: silentLogger });
  await bus.ensureTopology({ resultDurables: [{ name: "alerting" }] });
  receiver = await startHttpReceiver();
}, 60_000);
afterAll(async () => {
  await bus.close();
  await dropNatsStreams([prefix]);
  await receiver.close();
  await db.drop();
}, 60_000);

function spawnAlerting(crash: boolean) {
  return Bun.spawn(["bun", "run", "alerting/main.ts"], {
    cwd: `${import.meta.dir}/..`,
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      NATS_URL,
      NATS_PREFIX: prefix,
      SECRET_KEY: TEST_SECRET_KEY,
      ALLOW_PRIVATE_IPS: "true",
      LOG_LEVEL: "silent",
      ALERTING_POLL_MS: "50",
      ALERTING_LEASE_MS: "1500",
      ALERTING_TEST_CRASH_BEFORE_SEND: crash ? "true" : "false",
    },
    stdout: "ignore",
    stderr: "inherit",
  });
}

it("delivers exactly once after the alerting process dies between deciding and sending", async () => {
  const o = await alertingOrg(db.sql);
  const mon = await o.monitor();
  const ch = await o.webhook(`${receiver.url}/crash`);
  await o.rule({ channels: [{ channel_id: ch, delay_minutes: 0 }] });

  const first = spawnAlerting(true);
  await bus.publishResult(resultSubject(o.orgId, mon), result(o.orgId, mon, "down"));
  expect(await first.exited).not.toBe(0);
  expect(first.signalCode).toBe("SIGKILL");
  const [pending] = await db.sql`select status, attempts from alert_deliveries where org_id = ${o.orgId}`;
  expect(pending).toMatchObject({ status: "pending", attempts: 1 });
  expect(receiver.requests).toHaveLength(0);

  const second = spawnAlerting(false);
  try {
    await until(() => receiver.requests.length > 0, 15_000, "the alert after restart");
    await Bun.sleep(2500); // past another lease: nothing more may arrive
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.last().json().kind).toBe("alert");
    const rows = await db.sql`select status, attempts from alert_deliveries where org_id = ${o.orgId}`;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "sent", attempts: 2 });
    const history = await db.sql`select status from alert_history where org_id = ${o.orgId}`;
    expect(history.map((h) => h.status)).toEqual(["sent"]);
  } finally {
    second.kill("SIGTERM");
    await second.exited;
  }
}, 60_000);
