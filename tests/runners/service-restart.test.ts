import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestPki } from "../../runner/checks/test-support/test-pki.ts";
import { startBalancer } from "../faults/loopback.ts";
import { client, makeOrg } from "../support/api.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { freePort } from "../support/free-port.ts";
import { type RoleProcess, spawnRole } from "../support/processes.ts";
import { until } from "../support/scheduling.ts";
import { spawnRunner, startTarget, type RunnerProcess } from "./support.ts";

// The all-in-one (`npm start`, in-process bus) stopped and started again while its runners keep running: a runner
// cannot reach the API while it is down and needs a retry period to reach it again, so the outage is not its silence
// and the due checks of the outage are its to run. One that died meanwhile is still found out, one window later.

/** Heartbeats every 5 s: a runner is offline after 15 s of silence the service could have heard. */
const HEARTBEAT_MS = 5_000;
const OUTAGE_MS = 20_000;

let db: TestDatabase;
let dir: string;
let pki: ReturnType<typeof createTestPki>;
let target: ReturnType<typeof startTarget>;
let front: ReturnType<typeof startBalancer>;
let service: RoleProcess | null = null;
const runners: RunnerProcess[] = [];
const port = freePort();

let call: ReturnType<typeof client>;
let live: { runner: string; monitor: string };
let gone: { runner: string; monitor: string };
let stoppedAt = 0;
let upAt = 0;

async function startService(): Promise<RoleProcess> {
  const p = spawnRole("scripts/start.ts", { DATABASE_URL: db.url, NATS_URL: "", DATA_DIR: dir, PORT: String(port), BILLING_SIM_PORT: "0", LOG_FORMAT: "json" });
  await p.waitForLog(`Watchpost running (all-in-one) at http://127.0.0.1:${port}`, 60_000);
  return p;
}

/** A runner, its process and an http monitor checked on it every 10 s. */
async function runnerWithMonitor(name: string) {
  const created = await call("POST", "/api/v1/runners", { name });
  expect(created.status).toBe(201);
  const proc = spawnRunner({
    SERVICE_API_URL: front.url,
    SERVICE_TOKEN: created.body.token,
    RUNNER_NAME: name,
    POLL_INTERVAL_MS: "2000",
    HEARTBEAT_INTERVAL_MS: String(HEARTBEAT_MS),
    ALLOW_PRIVATE_IPS: "true",
    NODE_EXTRA_CA_CERTS: join(dir, "ca.pem"),
  });
  runners.push(proc);
  await proc.waitForOutput("runner connected");
  // Made once the scheduler's placement (read every 2 s) has seen the runner: a first check runs at once, and would
  // be "runner offline" before.
  await Bun.sleep(2_500);
  const monitor = await call("POST", "/api/v1/monitors", { name: `${name} target`, type: "http", config: { url: `${target.url}/ok` }, interval_seconds: 10, regions: [], runner_ids: [created.body.id] });
  expect(monitor.status).toBe(201);
  return { ids: { runner: created.body.id as string, monitor: monitor.body.id as string }, proc };
}

const resultsOf = (monitorId: string, after: number) =>
  db.sql<{ status: string; error: string | null; scheduled_at: Date }[]>`
    select status, error, scheduled_at from check_results where monitor_id = ${monitorId} and scheduled_at > ${new Date(after)} order by scheduled_at`;

const activeAlerts = async (monitorId: string) => (await call("GET", `/api/v1/alert-rules/active?monitor_id=${monitorId}`)).body.data as { monitor_id: string; region: string }[];

const notices = (type: string, runnerId: string) =>
  db.sql`select 1 from notifications where type = ${type} and data->>'runner_id' = ${runnerId}`.then((r) => r.length);

beforeAll(async () => {
  db = await createTestDatabase();
  dir = mkdtempSync(join(tmpdir(), "wp-restart-"));
  chmodSync(dir, 0o755);
  pki = createTestPki();
  writeFileSync(join(dir, "ca.pem"), pki.caPem);
  target = startTarget();
  service = await startService();
  // The runners talk HTTPS only: a TLS proxy on loopback in front of the all-in-one, as Caddy or nginx would be.
  front = startBalancer(pki.leaf(2), [`http://127.0.0.1:${port}`]);
  const org = await makeOrg(db.sql, "business");
  call = client(`http://127.0.0.1:${port}`, { key: org.api_key });
  const hook = await call("POST", "/api/v1/alert-channels", { name: "hook", type: "webhook", config: { url: `${target.url}/hook` } });
  expect(hook.status).toBe(201);
  const rule = await call("POST", "/api/v1/alert-rules", { name: "Not monitored", scope: { type: "all_monitors" }, condition: { type: "monitoring_unavailable" }, channels: [{ channel_id: hook.body.id }] });
  expect(rule.status).toBe(201);
  const a = await runnerWithMonitor("rack-live");
  const b = await runnerWithMonitor("rack-gone");
  live = a.ids;
  gone = b.ids;
  // Both checked once (a new monitor's first check runs at once) before the service stops.
  await until(async () => (await resultsOf(live.monitor, 0)).some((r) => r.status === "up") && (await resultsOf(gone.monitor, 0)).some((r) => r.status === "up"), 20_000, "first checks");
  await service.stop(30_000);
  stoppedAt = Date.now();
  // One runner dies while the service is down; the other keeps retrying.
  b.proc.proc.kill("SIGKILL");
  await b.proc.exited;
  await Bun.sleep(OUTAGE_MS);
  service = await startService();
  upAt = Date.now();
}, 150_000);

afterAll(async () => {
  for (const r of runners) if (r.proc.exitCode === null) r.proc.kill("SIGKILL");
  await service?.stop(30_000);
  front?.stop();
  target?.stop();
  pki?.cleanup();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe("a restart of the all-in-one with self-hosted runners", () => {
  it("runs a live runner's due checks of the outage and of its first seconds: none is recorded unavailable, nothing alerts", async () => {
    // Past the runner's window (15 s) after the restart and a sweep (10 s) more: a misjudged runner would show by now.
    await until(async () => Date.now() - upAt > 3 * HEARTBEAT_MS + 12_000, 60_000, "a window and a sweep after the restart");
    const results = await resultsOf(live.monitor, stoppedAt - 1_000);
    expect(results.filter((r) => r.status !== "up").map((r) => `${r.scheduled_at.toISOString()} ${r.status}: ${r.error}`)).toEqual([]);
    // The due times of the outage were replayed and run (late), and the ones after it on time.
    expect(results.filter((r) => r.scheduled_at.getTime() < upAt).length).toBeGreaterThanOrEqual(1);
    expect(results.filter((r) => r.scheduled_at.getTime() > upAt).length).toBeGreaterThanOrEqual(2);
    expect(await activeAlerts(live.monitor)).toEqual([]);
    expect(await notices("runner.offline", live.runner)).toBe(0);
  }, 90_000);

  it("still records a runner that stays silent past its window after the restart unavailable, and alerts on it", async () => {
    await until(async () => (await resultsOf(gone.monitor, stoppedAt - 1_000)).some((r) => r.status === "unavailable"), 45_000, "unavailable results of the dead runner");
    const unavailable = (await resultsOf(gone.monitor, stoppedAt - 1_000)).filter((r) => r.status === "unavailable");
    expect(unavailable.every((r) => r.error?.includes("runner offline"))).toBe(true);
    // Not before it had been silent a whole window while the service could hear it.
    const [first] = await db.sql<{ at: Date }[]>`
      select min(checked_at) as at from check_results
      where monitor_id = ${gone.monitor} and status = 'unavailable' and scheduled_at > ${new Date(stoppedAt - 1_000)}`;
    expect(first!.at.getTime()).toBeGreaterThanOrEqual(upAt - 5_000 + 3 * HEARTBEAT_MS);
    await until(async () => (await activeAlerts(gone.monitor)).length > 0, 15_000, "the monitoring_unavailable alert");
    expect((await activeAlerts(gone.monitor))[0]).toMatchObject({ monitor_id: gone.monitor, region: gone.runner });
    await until(async () => (await notices("runner.offline", gone.runner)) === 1, 15_000, "runner.offline");
  }, 90_000);
});
