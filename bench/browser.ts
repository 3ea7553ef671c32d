/**
 * Browser Lite checks per minute that a pool of warm Chromium browsers sustains against a small
 * loopback site (HTML, a stylesheet, a script and an image), through the whole runCheck path:
 * config validation, a fresh context per check, the private-address guard (route interception and
 * the guard proxy), navigation timings, console and request accounting. Also the memory of one
 * warm browser (all its processes, private resident memory) idle and at its peak during the run.
 * The site runs in a child process so its CPU is not counted. Target: ≥ 120 checks/min with 2 browsers.
 *
 *   bun bench/browser.ts [seconds=60] [pool=2]
 *   bun bench/browser.ts 15          # a short run
 */
import { BrowserPool } from "../runner/checks/browser/browser-pool.ts";
import { treeCpuMs, treeMemoryBytes } from "../runner/checks/browser/process-tree.ts";
import { runCheck } from "../runner/checks/registry.ts";
import type { CheckJob, CheckStatus } from "../runner/checks/types.ts";

const seconds = Number(process.argv[2] ?? 60);
const size = Number(process.argv[3] ?? 2);

const SITE = `
const page = '<!doctype html><html><head><title>Bench shop</title><link rel="stylesheet" href="/app.css"><script src="/app.js" defer></script></head>'
  + '<body><h1>Bench shop</h1>' + '<p>Product description, reviews and prices. </p>'.repeat(40) + '<img src="/logo.svg" width="64" height="64"></body></html>';
const files = {
  "/": [page, "text/html; charset=utf-8"],
  "/app.css": ["body{font-family:sans-serif;margin:2em}h1{color:#234}p{line-height:1.4}", "text/css"],
  "/app.js": ["document.body.dataset.ready = '1';", "text/javascript"],
  "/logo.svg": ["<svg xmlns='http://www.w3.org/2000/svg' width='64' height='64'><circle cx='32' cy='32' r='30' fill='#3a7'/></svg>", "image/svg+xml"],
};
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch(req) {
  const f = files[new URL(req.url).pathname];
  return f ? new Response(f[0], { headers: { "content-type": f[1] } }) : new Response("no", { status: 404 });
} });
console.log(server.port);
`;

const site = Bun.spawn([process.execPath, "-e", SITE], { stdout: "pipe", stderr: "inherit" });
const first = await site.stdout.getReader().read();
const port = Number(new TextDecoder().decode(first.value).trim());
if (!port) throw new Error("the site did not start");

const launchStarted = performance.now();
const pool = await BrowserPool.start({ engines: ["chromium"], size, maxUses: 50 });
const launchMs = performance.now() - launchStarted;
const mb = (b: number) => Math.round(b / 1048576);
const idle = pool.browserPids("chromium").map((pid) => treeMemoryBytes(pid));

const job: CheckJob = { type: "browser_lite", config: { url: `http://127.0.0.1:${port}/`, keyword: "Bench shop" }, timeoutMs: 30_000, allowPrivate: true, ipv6: false };

// Warm up: every browser loads the page once.
await Promise.all(Array.from({ length: size }, () => runCheck(job, { browsers: pool })));

const statuses: Record<CheckStatus, number> = { up: 0, down: 0, degraded: 0, timeout: 0 };
const durations: number[] = [];
const errors = new Map<string, number>();
let peak = 0;
const sampler = setInterval(() => {
  for (const pid of pool.browserPids("chromium")) peak = Math.max(peak, treeMemoryBytes(pid));
}, 500);

const cpuBefore = pool.browserPids("chromium").reduce((a, pid) => a + treeCpuMs(pid), 0);
const ownCpuBefore = process.cpuUsage();
const started = performance.now();
const end = started + seconds * 1000;
// One worker loop per browser keeps every browser busy; more would only queue in the pool.
await Promise.all(
  Array.from({ length: size }, async () => {
    while (performance.now() < end) {
      const r = await runCheck(job, { browsers: pool });
      statuses[r.status]++;
      durations.push(r.duration_ms);
      if (r.error) errors.set(r.error, (errors.get(r.error) ?? 0) + 1);
    }
  }),
);
const elapsed = (performance.now() - started) / 1000;
const browserCpu = pool.browserPids("chromium").reduce((a, pid) => a + treeCpuMs(pid), 0) - cpuBefore;
const own = process.cpuUsage(ownCpuBefore);
const ownCpu = (own.user + own.system) / 1000;
clearInterval(sampler);
const stats = pool.stats()[0]!;
await pool.close();
site.kill();

const total = durations.length;
durations.sort((a, b) => a - b);
const pct = (p: number) => durations[Math.min(total - 1, Math.floor((p / 100) * total))]!.toFixed(0);
const perMinute = (total / elapsed) * 60;
console.log(`browser lite checks, pool of ${size} Chromium, ${elapsed.toFixed(1)} s against a loopback site (4 requests per page)`);
console.log(`  checks/min            ${perMinute.toFixed(0)}  (target ≥ 120)  ${perMinute >= 120 ? "OK" : "BELOW TARGET"}`);
console.log(`  checks                ${total}  ${JSON.stringify(statuses)}`);
console.log(`  check duration ms     p50 ${pct(50)}  p95 ${pct(95)}  max ${durations[total - 1]!.toFixed(0)}`);
const cpuPerCheck = (browserCpu + ownCpu) / Math.max(1, total);
console.log(`  CPU per check         ${cpuPerCheck.toFixed(0)} ms (browsers ${(browserCpu / Math.max(1, total)).toFixed(0)}, engine process ${(ownCpu / Math.max(1, total)).toFixed(0)}): at most ${((2 * 60_000) / cpuPerCheck).toFixed(0)} checks/min on 2 idle cores`);
console.log(`  load average          ${(await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ")} (other work on the machine slows this down)`);
console.log(`  memory per browser    idle ${idle.map(mb).join(", ")} MB  peak ${mb(peak)} MB (private resident memory of the browser's processes)`);
console.log(`  pool                  launch of ${size} warm browsers ${launchMs.toFixed(0)} ms; relaunches ${stats.launches - size} (recycled after 50 uses)`);
if (errors.size > 0) console.log(`  errors                ${JSON.stringify(Object.fromEntries(errors))}`);
process.exit(0);
