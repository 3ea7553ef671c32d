/**
 * What a person watching a runner's terminal learns at info level: what it starts with and where it connects, that
 * its session is open, when it loses and regains the API (once per change, not once per retry), why it stops and
 * what it handed back. Checks themselves are not logged at info.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { RUNNER_VERSION } from "../../runner/version.ts";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.ts";
import { collectResults, orgWithRunner, publishHttpJob, type RunnerProcess, spawnRunner, startTarget, startTlsApi, type TlsApi } from "./support.ts";

let api: TlsApi;
let proxy: TcpProxy;
let target: ReturnType<typeof startTarget>;
beforeAll(async () => {
  api = await startTlsApi();
  proxy = await startTcpProxy(Number(new URL(api.url).port));
  target = startTarget();
}, 30_000);
afterAll(async () => {
  await target?.stop();
  await proxy?.stop();
  await api?.stop();
});

interface Line {
  level: number;
  msg: string;
  [field: string]: unknown;
}
const INFO = 30;
const WARN = 40;

const lines = (proc: RunnerProcess): Line[] =>
  proc
    .output()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Line);
const matching = (proc: RunnerProcess, re: RegExp) => lines(proc).filter((l) => re.test(l.msg));

async function waitForLine(proc: RunnerProcess, re: RegExp, timeoutMs = 15_000): Promise<Line> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const hit = matching(proc, re)[0];
    if (hit) return hit;
    if (Date.now() > end) throw new Error(`no log line matching ${re} within ${timeoutMs} ms: ${proc.output()}`);
    await Bun.sleep(25);
  }
}

describe("runner logs", () => {
  it("say where it connects and as what, when the API goes away and comes back (once each), and why it stops", async () => {
    const { org, runner } = await orgWithRunner(api);
    const url = `https://127.0.0.1:${proxy.port}`;
    const proc = spawnRunner({
      SERVICE_API_URL: url,
      SERVICE_TOKEN: runner.token,
      RUNNER_NAME: "rack-7",
      RUNNER_REGION: "basement",
      CONCURRENCY: "3",
      POLL_INTERVAL_MS: "1000",
      HEARTBEAT_INTERVAL_MS: "5000",
      ALLOW_PRIVATE_IPS: "true",
      LOG_FORMAT: "json",
      NODE_EXTRA_CA_CERTS: api.caFile,
    });
    const start = await waitForLine(proc, /^starting/);
    expect(start).toMatchObject({ level: INFO, server: url, runnerName: "rack-7", region: "basement", concurrency: 3, browsers: [], version: RUNNER_VERSION });
    expect(start.msg).toContain(url);
    const connected = await waitForLine(proc, /runner connected/);
    expect(connected).toMatchObject({ level: INFO, server: url, runnerId: runner.id, encrypted: true });
    expect(String(connected.sessionId)).toStartWith("rsn_");

    // Checks run without a line each at info.
    const results = await collectResults(api.bus, org.org_id);
    const jobs = [await publishHttpJob(api.bus, org.org_id, runner.id, "mon_l1", `${target.url}/ok`), await publishHttpJob(api.bus, org.org_id, runner.id, "mon_l2", `${target.url}/ok`)];
    for (const job of jobs) await results.waitFor((x) => x.id === job.id);
    await results.stop();
    const chatty = lines(proc).filter((l) => l.level <= INFO && JSON.stringify(l).match(/mon_l[12]|jobId/));
    expect(chatty).toEqual([]);

    // The API goes away for a few retries (claims every second), then comes back.
    await proxy.cut("refuse");
    const lost = await waitForLine(proc, /API unreachable/);
    expect(lost).toMatchObject({ level: WARN, server: url });
    await Bun.sleep(4000);
    await proxy.restore();
    const back = await waitForLine(proc, /API reachable again/);
    expect(back.level).toBe(INFO);
    expect(matching(proc, /API unreachable/)).toHaveLength(1);
    expect(matching(proc, /API call failed/)).toHaveLength(0);
    await Bun.sleep(1500);
    expect(matching(proc, /API reachable again/)).toHaveLength(1);

    proc.proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    expect(await waitForLine(proc, /shutting down/)).toMatchObject({ level: INFO, signal: "SIGTERM" });
    expect(await waitForLine(proc, /offline now/)).toMatchObject({ level: INFO, handedBack: 0 });
    expect(await waitForLine(proc, /runner stopped/)).toMatchObject({ level: INFO });
  }, 60_000);
});
