import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from "bun:test";
import { createMemoryBus, type Bus } from "../../core/bus/index.ts";
import { SecretBox } from "../../core/crypto/secrets.ts";
import { type CheckJobMessage, type CheckResultMessage, jobId, regionBrowserSubject } from "../../schemas/messages/check-messages.ts";
import { silentLogger } from "../../core/log.ts";
import { findArtifact } from "../../db/queries/check-artifacts.ts";
import { createTestDatabase, type TestDatabase } from "../../tests/support/db.ts";
import { insertMonitors, insertOrg, until } from "../../tests/support/scheduling.ts";
import type { BrowserPool } from "../checks/browser/browser-pool.ts";
import { html, startPageServer, testPool } from "../checks/browser/test-support.ts";
import { startWorker, type WorkerHandle } from "./worker.ts";

setDefaultTimeout(60_000);

const box = new SecretBox("worker-test-secret-key-0123456789abcdef");
let db: TestDatabase;
let pool: BrowserPool;
let bus: Bus;
let worker: WorkerHandle;
let site: ReturnType<typeof startPageServer>;
const results: CheckResultMessage[] = [];
const region = "browser-region";

beforeAll(async () => {
  db = await createTestDatabase();
  site = startPageServer({ "/": () => html("<title>Home</title><p>Welcome</p>") });
  pool = await testPool();
  bus = createMemoryBus();
  await bus.ensureTopology();
  await bus.consumeResults<CheckResultMessage>("test", { maxWaitMs: 10 }, (batch) => void results.push(...batch.map((d) => d.data)));
  worker = await startWorker({ bus, sql: db.sql, box, log: silentLogger, region, concurrency: 4, allowPrivate: true, heartbeatMs: 1000, workerId: "browser-worker", browsers: pool });
});
afterAll(async () => {
  await worker?.stop();
  await pool?.close();
  await bus?.close();
  site?.stop();
  await db?.drop();
});

async function browserJob(monitorId: string, orgId: string, config: Record<string, unknown>): Promise<CheckJobMessage> {
  const due = Date.now();
  return { id: jobId(monitorId, region, due), org_id: orgId, monitor_id: monitorId, location: region, location_type: "region", due_at: due, expires_at: due + 60_000, type: "browser_lite", config, secrets_enc: null, timeout_ms: 10_000 };
}

describe("cloud worker with browsers", () => {
  it("reports its engines so the scheduler can place browser monitors in its region", async () => {
    const [row] = await db.sql<{ browsers: string[] }[]>`select browsers from region_workers where worker_id = 'browser-worker'`;
    expect(row!.browsers).toEqual(["chromium"]);
  });

  it("runs browser jobs from its region's engine queue and stores the failure screenshot with the result", async () => {
    const org = await insertOrg(db.sql);
    const [monitor] = await insertMonitors(db.sql, org, [{ type: "browser_lite", config: { url: site.url("/") }, regions: [region] }]);
    const up = await browserJob(monitor!, org, { url: site.url("/"), keyword: "Welcome" });
    await bus.publishJob(regionBrowserSubject(region, "chromium"), up);
    await until(() => results.some((r) => r.id === up.id), 30_000);
    expect(results.find((r) => r.id === up.id)).toMatchObject({ status: "up", error: null, data: { engine: "chromium", title: "Home", screenshots: null } });

    const down = await browserJob(monitor!, org, { url: site.url("/"), keyword: "Checkout" });
    await bus.publishJob(regionBrowserSubject(region, "chromium"), down);
    await until(() => results.some((r) => r.id === down.id), 30_000);
    const result = results.find((r) => r.id === down.id)!;
    expect(result).toMatchObject({ status: "down", error: 'keyword not found in the rendered page: "Checkout"', data: { screenshots: ["failure"] } });
    const file = await findArtifact(db.sql, org, monitor!, down.id);
    expect(file).toMatchObject({ name: "failure", content_type: "image/jpeg" });
    expect(file!.bytes[0]).toBe(0xff);
    expect(file!.bytes.length).toBeGreaterThan(1000);
  });

  it("keeps no screenshot for a monitor that was deleted meanwhile, and says so in the result", async () => {
    const org = await insertOrg(db.sql);
    const down = await browserJob("mon_gone", org, { url: site.url("/"), keyword: "Checkout" });
    await bus.publishJob(regionBrowserSubject(region, "chromium"), down);
    await until(() => results.some((r) => r.id === down.id), 30_000);
    expect(results.find((r) => r.id === down.id)).toMatchObject({ status: "down", data: { screenshots: null } });
  });
});
