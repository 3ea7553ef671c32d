import { afterAll, beforeAll, expect, it } from "bun:test";
import { createMemoryBus } from "../core/bus/index.ts";
import { resultSubject } from "../schemas/messages/check-messages.ts";
import { silentLogger } from "../core/log.ts";
import { createTestDatabase, type TestDatabase } from "../tests/support/db.ts";
import { loadAlertingConfig } from "./config.ts";
import { startAlertingRole } from "./role.ts";
import { alertingOrg, result, testBox } from "./testing/fixtures.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
}, 30_000);
afterAll(() => db.drop());

it("drains the in-process bus before stopping: every result published up to then is stored and evaluated", async () => {
  // As in the all-in-one mode: the bus lives in this process's memory and dies with it.
  const bus = createMemoryBus({ log: silentLogger });
  const role = await startAlertingRole({ config: loadAlertingConfig({ DATABASE_URL: db.url, ALERTING_POLL_MS: "50" }), sql: db.sql, bus, box: testBox, log: silentLogger });
  const o = await alertingOrg(db.sql);
  const monitors = await Promise.all(Array.from({ length: 20 }, () => o.monitor()));
  const published = monitors.flatMap((m) => Array.from({ length: 25 }, () => result(o.orgId, m, "up")));
  await Promise.all(published.map((r) => bus.publishResult(resultSubject(r.org_id, r.monitor_id), r)));

  expect(await role.drain(20_000)).toBe(true);
  await role.stop();
  expect(await bus.pendingResults("ingest")).toBe(0);
  expect(await bus.pendingResults("alerting")).toBe(0);
  await bus.close();
  const [row] = await db.sql<{ n: number }[]>`select count(*)::int as n from check_results where org_id = ${o.orgId}`;
  expect(row!.n).toBe(published.length);
}, 30_000);
