/**
 * The self-hosted runner end to end: the real API over HTTPS (test CA), a real runner process,
 * jobs published on jobs.runner.<id>, results collected from RESULTS. Prints:
 *   - idle RSS of the runner process after it connected (target < 80 MB), source and binary;
 *   - checks/s at CONCURRENCY=100 against a loopback target, payload encryption on vs off
 *     (target: encryption costs < 10 %).
 *
 *   bun bench/runner.ts [jobs=3000] [rounds=3]       (a short run: bun bench/runner.ts 300 1)
 *
 * Needs the test PostgreSQL (TEST_DATABASE_URL). The target runs in a child process.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { arch } from "node:os";
import { join } from "node:path";
import { open, seal } from "../core/crypto/session-seal.ts";
import { collectResults, orgWithRunner, publishHttpJob, startTlsApi } from "../tests/runners/support.ts";

const jobs = Number(process.argv[2] ?? 3000);
const rounds = Number(process.argv[3] ?? 3);
const root = join(import.meta.dir, "..");
const binary = join(root, `dist/runner-linux-${arch() === "arm64" ? "arm64" : "x64"}`);

const target = Bun.spawn([process.execPath, "-e", `const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("ok") }); console.log(s.port);`], { stdout: "pipe" });
const port = Number(new TextDecoder().decode((await target.stdout.getReader().read()).value).trim());
const targetUrl = `http://127.0.0.1:${port}/`;

const api = await startTlsApi();
/** utime + stime of a process in ms (clock ticks of 10 ms). */
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

async function startRunner(token: string, cmd: string[], extra: Record<string, string>) {
  const proc = Bun.spawn(cmd, {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", SERVICE_API_URL: api.url, SERVICE_TOKEN: token, NODE_EXTRA_CA_CERTS: api.caFile, ALLOW_PRIVATE_IPS: "true", POLL_INTERVAL_MS: "1000", LOG_LEVEL: "warn", ...extra },
    stdout: "ignore",
    stderr: "inherit",
  });
  // Connected once the API has recorded its session.
  for (let i = 0; i < 200; i++) {
    const [row] = await api.db.sql`select last_seen_at from runners where token_hash = sha256(${token}::bytea)`;
    if (row?.last_seen_at) break;
    await Bun.sleep(25);
  }
  return proc;
}

async function idleRss(label: string, cmd: string[]) {
  const { runner } = await orgWithRunner(api);
  const proc = await startRunner(runner.token, cmd, { CONCURRENCY: "10" });
  await Bun.sleep(5000);
  console.log(`idle RSS (${label}): ${rssMb(proc.pid).toFixed(1)} MB`);
  proc.kill("SIGTERM");
  await proc.exited;
}

async function throughput(encrypted: boolean): Promise<{ rate: number; runnerUs: number; apiUs: number }> {
  const { org, runner } = await orgWithRunner(api);
  const proc = await startRunner(runner.token, [process.execPath, "runner/main.ts"], { CONCURRENCY: "100", ALLOW_UNENCRYPTED_SESSION: String(!encrypted) });
  const results = await collectResults(api.bus, org.org_id);
  const t0 = performance.now();
  const cpu0 = cpuMs(proc.pid);
  const api0 = process.cpuUsage();
  const published = [];
  for (let i = 0; i < jobs; i++) published.push(publishHttpJob(api.bus, org.org_id, runner.id, `mon_bench${i}`, targetUrl));
  await Promise.all(published);
  while (results.seen.length < jobs) await Bun.sleep(10);
  const seconds = (performance.now() - t0) / 1000;
  const runnerUs = ((cpuMs(proc.pid) - cpu0) * 1000) / jobs;
  const apiCpu = process.cpuUsage(api0);
  const apiUs = (apiCpu.user + apiCpu.system) / jobs;
  const bad = results.seen.filter((r) => r.status !== "up").length;
  const peak = rssMb(proc.pid);
  proc.kill("SIGTERM");
  await proc.exited;
  await results.stop();
  const rate = jobs / seconds;
  console.log(
    `  ${encrypted ? "encrypted" : "plain    "}: ${jobs} checks in ${seconds.toFixed(2)} s = ${rate.toFixed(0)} checks/s; CPU per check: runner ${runnerUs.toFixed(0)} µs, API+bench ${apiUs.toFixed(0)} µs (not up: ${bad}, runner RSS after: ${peak.toFixed(1)} MB)`,
  );
  return { rate, runnerUs, apiUs };
}

await idleRss("bun runner/main.ts", [process.execPath, "runner/main.ts"]);
if (existsSync(binary)) await idleRss(binary.slice(root.length + 1), [binary]);
else console.log("idle RSS (binary): skipped, run scripts/build-runner.sh --host-only first");

console.log(`checks/s at CONCURRENCY=100, ${jobs} jobs per round, ${rounds} rounds:`);
const on: Awaited<ReturnType<typeof throughput>>[] = [];
const off: typeof on = [];
for (let r = 0; r < rounds; r++) {
  off.push(await throughput(false));
  on.push(await throughput(true));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const m = (rs: typeof on, k: keyof (typeof on)[number]) => median(rs.map((r) => r[k]));
console.log(`median checks/s: encrypted ${m(on, "rate").toFixed(0)}, plain ${m(off, "rate").toFixed(0)} → throughput cost ${((1 - m(on, "rate") / m(off, "rate")) * 100).toFixed(1)} % (wall clock, everything on one machine: noisy)`);
const cpuOn = m(on, "runnerUs") + m(on, "apiUs");
const cpuOff = m(off, "runnerUs") + m(off, "apiUs");
console.log(`median CPU per check (runner + API): encrypted ${cpuOn.toFixed(0)} µs, plain ${cpuOff.toFixed(0)} µs → CPU cost ${((cpuOn / cpuOff - 1) * 100).toFixed(1)} %`);

// The cryptographic work alone, per check: one job sealed and opened, one result sealed and opened.
{
  const key = randomBytes(32);
  const job = { claim: "x".repeat(300), job: { id: "mon_1.run_1.1", org_id: "org_1", monitor_id: "mon_1", location: "run_1", due_at: 1, expires_at: 2, type: "http", config: { url: targetUrl }, timeout_ms: 5000 } };
  const result = { claim: "x".repeat(300), status: "up", checked_at: 1, duration_ms: 2.5, error: null, data: { status_code: 200, dns_ms: 1, connect_ms: 1, tls_ms: null, ttfb_ms: 2, response_time: 2.5, body_bytes: 2, final_url: targetUrl, redirects: 0, ip: "127.0.0.1" } };
  const n = 20_000;
  const t0 = performance.now();
  for (let i = 1; i <= n; i++) {
    open(key, "s2r", seal(key, "rsn_1", "s2r", i, { jobs: [job] }));
    open(key, "r2s", seal(key, "rsn_1", "r2s", i, { results: [result] }));
  }
  const perCheckUs = ((performance.now() - t0) * 1000) / n;
  console.log(`crypto alone per check (seal+open of one job and one result): ${perCheckUs.toFixed(1)} µs = ${((perCheckUs / cpuOff) * 100).toFixed(1)} % of the plain CPU per check`);
}

target.kill();
await api.stop();
process.exit(0);
