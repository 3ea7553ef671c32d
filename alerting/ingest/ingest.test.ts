import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { type Bus, createMemoryBus } from "../../core/bus/index.ts";
import { Value } from "@sinclair/typebox/value";
import { Registry } from "prom-client";
import "../../schemas/formats.ts";
import { CheckResultEvent, MonitorStatusChangedEvent } from "../../schemas/events/live-event-schemas.ts";
import type { LiveEvent } from "../../schemas/events/live-event-types.ts";
import { type CheckResultMessage, resultSubject } from "../../schemas/messages/check-messages.ts";
import { silentLogger } from "../../core/log.ts";
import { findArtifact } from "../../db/queries/check-artifacts.ts";
import { createTestDatabase, type TestDatabase } from "../../tests/support/db.ts";
import { partitionByMonitor, startIngest } from "./ingest.ts";

let db: TestDatabase;
let bus: Bus;
let stop: () => Promise<void>;

beforeAll(async () => {
  db = await createTestDatabase();
  bus = createMemoryBus();
  const handle = await startIngest({ sql: db.sql, bus, log: silentLogger, maxWaitMs: 10 });
  stop = () => handle.stop();
});
afterAll(async () => {
  await stop();
  await bus.close();
  await db.drop();
});

async function monitor() {
  const orgId = `org_${crypto.randomUUID().replaceAll("-", "")}`;
  const monitorId = `mon_${crypto.randomUUID().replaceAll("-", "")}`;
  await db.sql`insert into organisations (id, name) values (${orgId}, 'o')`;
  await db.sql`insert into monitors (id, org_id, name, type, config, interval_seconds, timeout_ms) values (${monitorId}, ${orgId}, 'm', 'http', '{}', 60, 1000)`;
  return { orgId, monitorId };
}

const result = (orgId: string, monitorId: string, due: number, status: CheckResultMessage["status"]): CheckResultMessage => ({
  id: `${monitorId}.local.${due}`,
  org_id: orgId,
  monitor_id: monitorId,
  location: "local",
  location_type: "region",
  scheduled_at: due,
  checked_at: due + 5,
  status,
  duration_ms: 12,
  error: status === "up" ? null : "boom",
  data: { status_code: status === "up" ? 200 : 500 },
});

async function until(check: () => Promise<boolean>, ms = 3000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await Bun.sleep(20);
  }
  throw new Error("condition not met in time");
}

describe("ingest", () => {
  it("stores a result delivered twice once, updates the monitor and publishes events", async () => {
    const { orgId, monitorId } = await monitor();
    const events: LiveEvent[] = [];
    const unsubscribe = bus.subscribeEvents<LiveEvent>(`events.${orgId}`, (e) => events.push(e));
    const due = Date.now() - 1000;
    const r = result(orgId, monitorId, due, "down");
    await bus.publishResult(resultSubject(orgId, monitorId), r);
    // A second copy after the bus de-dup window would be a new message: simulate with a new bus message id by the same job.
    await bus.publishResult(resultSubject(orgId, monitorId), { ...r, id: r.id });
    await until(async () => (await db.sql`select count(*)::int as n from check_results where monitor_id = ${monitorId}`)[0]!.n === 1);
    await until(async () => events.length >= 2);
    const [m] = await db.sql`select m.status, s.last_duration_ms from monitors m join monitor_state s on s.monitor_id = m.id where m.id = ${monitorId}`;
    expect(m).toEqual({ status: "down", last_duration_ms: 12 });
    expect(events.map((e) => e.type).sort()).toEqual(["check.result", "monitor.status_changed"]);
    expect(events.find((e) => e.type === "monitor.status_changed")!.data).toMatchObject({ monitor_id: monitorId, from: "pending", to: "down" });
    // Exactly the shapes the OpenAPI document publishes for these events.
    const schemaOf = { "check.result": CheckResultEvent, "monitor.status_changed": MonitorStatusChangedEvent } as const;
    for (const e of events) expect([...Value.Errors(schemaOf[e.type as keyof typeof schemaOf], e)].map((x) => `${x.path} ${x.message}`)).toEqual([]);
    unsubscribe();
  });

  it("stores a job's result once even when it arrives again after the bus forgot it", async () => {
    const { orgId, monitorId } = await monitor();
    const due = Date.now() - 5000;
    const a = result(orgId, monitorId, due, "up");
    const other = createMemoryBus();
    // Two buses stand in for a redelivery the bus no longer de-duplicates: only PostgreSQL can catch it.
    await bus.publishResult(resultSubject(orgId, monitorId), a);
    await until(async () => (await db.sql`select count(*)::int as n from check_results where monitor_id = ${monitorId}`)[0]!.n === 1);
    await bus.publishResult(resultSubject(orgId, monitorId), { ...a, id: a.id, checked_at: a.checked_at + 1 } as CheckResultMessage);
    await Bun.sleep(200);
    expect((await db.sql`select count(*)::int as n from check_results where monitor_id = ${monitorId}`)[0]!.n).toBe(1);
    await other.close();
  });

  it("drops malformed results and results of deleted monitors without blocking the rest", async () => {
    const { orgId, monitorId } = await monitor();
    const due = Date.now() - 2000;
    await bus.publishResult(resultSubject(orgId, "mon_gone"), result(orgId, "mon_gone", due, "up"));
    await bus.publishResult(resultSubject(orgId, monitorId), { id: "bad", status: "sideways" } as never);
    // Times PostgreSQL cannot store (past year 9999, before year 1) are malformed too, not a batch that fails for ever.
    await bus.publishResult(resultSubject(orgId, monitorId), { ...result(orgId, monitorId, 8.64e15, "up"), id: "far" });
    await bus.publishResult(resultSubject(orgId, monitorId), { ...result(orgId, monitorId, due, "up"), id: "early", checked_at: -62_200_000_000_000 });
    await bus.publishResult(resultSubject(orgId, monitorId), result(orgId, monitorId, due, "up"));
    await until(async () => (await db.sql`select count(*)::int as n from check_results where monitor_id = ${monitorId}`)[0]!.n === 1);
    expect((await db.sql`select count(*)::int as n from check_results where monitor_id = 'mon_gone'`)[0]!.n).toBe(0);
  });

  it("counts stored, duplicate and dropped results in its metrics", async () => {
    const registry = new Registry();
    // A bus that forgets message ids at once, so the second copy of a job's result reaches ingest.
    const own = createMemoryBus({ results: { duplicateWindowMs: 1 } });
    const handle = await startIngest({ sql: db.sql, bus: own, log: silentLogger, maxWaitMs: 10, registry });
    try {
      const { orgId, monitorId } = await monitor();
      const due = Date.now() - 3000;
      const r = result(orgId, monitorId, due, "up");
      await own.publishResult(resultSubject(orgId, monitorId), r);
      await until(async () => (await db.sql`select count(*)::int as n from check_results where monitor_id = ${monitorId}`)[0]!.n === 1);
      // The same job again after the bus forgot it (PostgreSQL catches it), and a result of a deleted monitor.
      await Bun.sleep(5);
      await own.publishResult(resultSubject(orgId, monitorId), { ...r, checked_at: r.checked_at + 1 });
      await own.publishResult(resultSubject(orgId, "mon_gone"), result(orgId, "mon_gone", due, "up"));
      const count = async (outcome: string) => (await registry.getSingleMetric("watchpost_ingest_results_total")!.get()).values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
      await until(async () => (await count("duplicate")) === 1 && (await count("dropped")) === 1);
      expect(await count("stored")).toBe(1);
      expect(await registry.metrics()).toContain("watchpost_ingest_batch_seconds_count");
    } finally {
      await handle.stop();
      await own.close();
    }
  });

  it("stores a result's screenshots and names them in data.screenshots", async () => {
    const { orgId, monitorId } = await monitor();
    const due = Date.now() - 1000;
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
    const r: CheckResultMessage = {
      ...result(orgId, monitorId, due, "down"),
      data: { engine: "chromium", screenshots: ["failure"] },
      artifacts: [{ name: "failure", content_type: "image/jpeg", data_base64: jpeg.toString("base64") }],
    };
    await bus.publishResult(resultSubject(orgId, monitorId), r);
    await until(async () => (await db.sql`select 1 from check_results where monitor_id = ${monitorId}`).length === 1);
    const [row] = await db.sql<{ data: Record<string, unknown> }[]>`select data from check_results where monitor_id = ${monitorId}`;
    expect(row!.data).toEqual({ engine: "chromium", screenshots: ["failure"] });
    const file = await findArtifact(db.sql, orgId, monitorId, r.id);
    expect(file).toMatchObject({ name: "failure", content_type: "image/jpeg" });
    expect(Buffer.from(file!.bytes)).toEqual(jpeg);
  });

  it("keeps no screenshot of a result whose monitor was deleted meanwhile", async () => {
    const { orgId, monitorId } = await monitor();
    await db.sql`delete from monitors where id = ${monitorId}`;
    const r: CheckResultMessage = {
      ...result(orgId, monitorId, Date.now() - 1000, "down"),
      data: { screenshots: ["failure"] },
      artifacts: [{ name: "failure", content_type: "image/jpeg", data_base64: Buffer.from([0xff, 0xd8]).toString("base64") }],
    };
    await bus.publishResult(resultSubject(orgId, monitorId), r);
    await Bun.sleep(300);
    expect((await db.sql`select 1 from check_artifacts where job_id = ${r.id}`).length).toBe(0);
    expect((await db.sql`select 1 from check_results where job_id = ${r.id}`).length).toBe(0);
  });

  it("splits a batch into parts that never share a monitor, the same way every time", () => {
    const rows = Array.from({ length: 300 }, (_, i) => ({ monitor_id: `mon_${i % 37}`, n: i }));
    const parts = partitionByMonitor(rows, 2);
    expect(parts).toHaveLength(2);
    expect(parts.flat().length).toBe(300);
    const owner = (id: string) => parts.findIndex((p) => p.some((r) => r.monitor_id === id));
    for (const r of rows) expect(parts[owner(r.monitor_id)]!.some((x) => x.n === r.n)).toBe(true);
    const second = new Set(parts[1]!.map((r) => r.monitor_id));
    expect(parts[0]!.filter((r) => second.has(r.monitor_id))).toEqual([]);
    expect(partitionByMonitor(rows, 2)).toEqual(parts);
    expect(partitionByMonitor(rows, 1)).toEqual([rows]);
  });
});
