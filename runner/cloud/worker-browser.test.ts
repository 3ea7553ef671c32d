import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from "bun:test";
import { createMemoryBus, type Bus } from "../../core/bus/index.ts";
import { SecretBox } from "../../core/crypto/secrets.ts";
import { type CheckJobMessage, type CheckResultMessage, jobId, regionBrowserSubject } from "../../schemas/messages/check-messages.ts";
import { WORKER_BEATS, type WorkerBeatMessage } from "../../schemas/messages/worker-beat.ts";
import { silentLogger } from "../../core/log.ts";
import { until } from "../../tests/support/scheduling.ts";
import type { BrowserPool } from "../checks/browser/browser-pool.ts";
import { html, startPageServer, testPool } from "../checks/browser/test-support.ts";
import { RESULT_ARTIFACT_BUDGET } from "../checks/shared/pack-artifacts.ts";
import { startWorker, type WorkerHandle } from "./worker.ts";

setDefaultTimeout(60_000);

const box = new SecretBox("worker-test-secret-key-0123456789abcdef");
let pool: BrowserPool;
let bus: Bus;
let worker: WorkerHandle;
let site: ReturnType<typeof startPageServer>;
const results: CheckResultMessage[] = [];
const beats: WorkerBeatMessage[] = [];
const region = "browser-region";

beforeAll(async () => {
  site = startPageServer({ "/": () => html("<title>Home</title><p>Welcome</p>") });
  pool = await testPool();
  bus = createMemoryBus();
  await bus.ensureTopology();
  await bus.consumeResults<CheckResultMessage>("test", { maxWaitMs: 10 }, (batch) => void results.push(...batch.map((d) => d.data)));
  bus.subscribeEvents<WorkerBeatMessage>(WORKER_BEATS, (b) => beats.push(b));
  // No database: screenshots and presence leave on the bus for ingest to store.
  worker = await startWorker({ bus, box, log: silentLogger, region, concurrency: 4, allowPrivate: true, heartbeatMs: 1000, workerId: "browser-worker", browsers: pool });
});
afterAll(async () => {
  await worker?.stop();
  await pool?.close();
  await bus?.close();
  site?.stop();
});

function browserJob(monitorId: string, orgId: string, config: Record<string, unknown>): CheckJobMessage {
  const due = Date.now();
  return { id: jobId(monitorId, region, due), org_id: orgId, monitor_id: monitorId, location: region, location_type: "region", due_at: due, expires_at: due + 60_000, type: "browser_lite", config, secrets_enc: null, timeout_ms: 10_000 };
}

describe("cloud worker with browsers", () => {
  it("reports its engines so the scheduler can place browser monitors in its region", async () => {
    await until(() => beats.length > 0, 3000, "a beat");
    expect(beats[0]).toMatchObject({ workerId: "browser-worker", region, browsers: ["chromium"] });
  });

  it("runs browser jobs from its region's engine queue and sends the failure screenshot with the result", async () => {
    const up = browserJob("mon_shots", "org_shots", { url: site.url("/"), keyword: "Welcome" });
    await bus.publishJob(regionBrowserSubject(region, "chromium"), up);
    await until(() => results.some((r) => r.id === up.id), 30_000);
    const ok = results.find((r) => r.id === up.id)!;
    expect(ok).toMatchObject({ status: "up", error: null, data: { engine: "chromium", title: "Home", screenshots: null } });
    expect(ok.artifacts).toBeUndefined();

    const down = browserJob("mon_shots", "org_shots", { url: site.url("/"), keyword: "Checkout" });
    await bus.publishJob(regionBrowserSubject(region, "chromium"), down);
    await until(() => results.some((r) => r.id === down.id), 30_000);
    const result = results.find((r) => r.id === down.id)!;
    expect(result).toMatchObject({ status: "down", error: 'keyword not found in the rendered page: "Checkout"', data: { screenshots: ["failure"] } });
    expect(result.artifacts!.map((a) => [a.name, a.content_type])).toEqual([["failure", "image/jpeg"]]);
    const bytes = Buffer.from(result.artifacts![0]!.data_base64, "base64");
    expect(bytes[0]).toBe(0xff);
    expect(bytes.length).toBeGreaterThan(1000);
    expect(bytes.length).toBeLessThanOrEqual(RESULT_ARTIFACT_BUDGET);
  });
});
