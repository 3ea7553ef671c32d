/**
 * HTTP checks per second that one engine process sustains against a loopback target, each
 * check on a fresh connection, through the whole runCheck path (config validation, guard,
 * connect, request, body read). The target runs in a child process so its CPU is not counted.
 * Then the memory an in-flight check holds: `in-flight` checks against a target route that
 * answers after 2 s, the heap (after a full GC) and RSS while they all wait, minus both before.
 *
 *   bun bench/checks.ts [seconds=10] [concurrency=64] [type=http|keyword] [in-flight=1000]
 *
 * To measure on exactly one core, pin the engine and give the target the other core:
 *   BENCH_TARGET_CPU=1 taskset -c 0 bun bench/checks.ts
 */
import { readFileSync } from "node:fs";
import { runCheck } from "../runner/checks/registry.ts";
import type { CheckJob, CheckStatus } from "../runner/checks/types.ts";

const seconds = Number(process.argv[2] ?? 10);
const concurrency = Number(process.argv[3] ?? 64);
const type = (process.argv[4] ?? "http") as "http" | "keyword";
const inFlight = Number(process.argv[5] ?? 1000);

const TARGET = `
const body = "<html><body>" + "Watchpost bench target ".repeat(40) + "</body></html>";
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 30,
  async fetch(req) {
    if (req.url.endsWith("/held")) await Bun.sleep(2000);
    return new Response(body, { headers: { "content-type": "text/html" } });
  },
});
console.log(server.port);
`;

const targetCpu = process.env.BENCH_TARGET_CPU;
const targetArgv = [process.execPath, "-e", TARGET];
const target = Bun.spawn(targetCpu ? ["taskset", "-c", targetCpu, ...targetArgv] : targetArgv, { stdout: "pipe", stderr: "inherit" });
const reader = target.stdout.getReader();
const first = await reader.read();
const port = Number(new TextDecoder().decode(first.value).trim());
if (!port) throw new Error("the target server did not start");

const url = `http://127.0.0.1:${port}/`;
const jobFor = (checked: string): CheckJob => ({
  type,
  config: type === "keyword" ? { url: checked, keyword: "bench target" } : { url: checked },
  timeoutMs: 10_000,
  allowPrivate: true,
  ipv6: false,
});
const job = jobFor(url);

// Warm up JIT and the connection path before measuring.
for (let i = 0; i < 500; i++) await runCheck(job);

// Memory per in-flight check: every check connected and waiting for the held answer.
const memory = () => {
  Bun.gc(true);
  return process.memoryUsage();
};
const heldJob = jobFor(`${url}held`);
const idle = memory();
const held = Array.from({ length: inFlight }, () => runCheck(heldJob));
await Bun.sleep(1000);
const busy = memory();
const heldResults = await Promise.all(held);
const heldUp = heldResults.filter((r) => r.status === "up").length;

const statuses: Record<CheckStatus, number> = { up: 0, down: 0, degraded: 0, timeout: 0 };
const durations: number[] = [];
const errors = new Map<string, number>();
let peakRss = 0;
const rssTimer = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 250);

const cpuBefore = process.cpuUsage();
const started = performance.now();
const deadline = started + seconds * 1000;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline) {
      const result = await runCheck(job);
      statuses[result.status]++;
      durations.push(result.duration_ms);
      if (result.error) errors.set(result.error, (errors.get(result.error) ?? 0) + 1);
    }
  }),
);
const elapsedS = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
clearInterval(rssTimer);
peakRss = Math.max(peakRss, process.memoryUsage().rss);
target.kill();

const total = durations.length;
durations.sort((a, b) => a - b);
const pct = (p: number) => durations[Math.min(total - 1, Math.floor((p / 100) * total))];
const cpuMs = (cpu.user + cpu.system) / 1000;
console.log(`${type} checks against ${url}, fresh connection each, concurrency ${concurrency}, ${elapsedS.toFixed(1)} s`);
console.log(`  checks:          ${total} (${JSON.stringify(statuses)})`);
console.log(`  checks/s:        ${(total / elapsedS).toFixed(0)}`);
console.log(`  CPU ms/check:    ${(cpuMs / total).toFixed(3)} (user ${(cpu.user / 1000 / total).toFixed(3)}, system ${(cpu.system / 1000 / total).toFixed(3)})`);
console.log(`  CPU utilisation: ${((cpuMs / 1000 / elapsedS) * 100).toFixed(0)}% of one core`);
console.log(`  duration_ms:     p50 ${pct(50)}  p90 ${pct(90)}  p99 ${pct(99)}  max ${durations[total - 1]}`);
console.log(`  RSS:             ${(process.memoryUsage().rss / 1048576).toFixed(0)} MiB now, ${(peakRss / 1048576).toFixed(0)} MiB peak`);
const perCheckKb = (before: number, during: number) => ((during - before) / 1024 / inFlight).toFixed(2);
console.log(
  `  in flight:       ${inFlight} checks (${heldUp} up): heap ${perCheckKb(idle.heapUsed, busy.heapUsed)} KiB, RSS ${perCheckKb(idle.rss, busy.rss)} KiB per check (after a full GC)`,
);
for (const [error, count] of [...errors].slice(0, 5)) console.log(`  error x${count}: ${error}`);
console.log(`  load average:    ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
process.exit(0);
