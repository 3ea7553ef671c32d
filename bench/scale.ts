/**
 * The all-in-one at scale (#24 item 2): for each N, a fresh all-in-one (`bun scripts/start.ts`, embedded PostgreSQL in a
 * temporary DATA_DIR) with N HTTP monitors created through `POST /api/v1/monitors/bulk` against a loopback target that
 * records every arrival per monitor; after the warm-up, one measured window. Prints one line per N: checks/s achieved
 * (arrivals at the target) against expected, the interval between consecutive arrivals of each monitor (deviation
 * percentiles from the configured interval), stored results by status, CPU per check of the Bun process and of every
 * PostgreSQL process (the postmaster's own ticks plus its reaped children's, plus its live backends), and PSS from
 * /proc/<pid>/smaps_rollup (not RSS). Bun's CPU covers all its threads; its main thread's share is printed beside it.
 * A second line per N ("under load") gives goal 1's two other figures, from a second window of the same length right
 * after the first with the N monitors still running (the screen loads cost the overview's queries over every monitor, so
 * they stay out of the first window's figures; the line's checks/s and CPU show what they add):
 *  - webhook: P probe monitors (tag `bench-probe`, same interval, created with the N), whose own target answers 200, then
 *    500 from an instant spread over the second window; an alert rule made through the API (status down/timeout,
 *    1 consecutive failure, a webhook channel with no delay) to a loopback receiver. Webhook arrival − the arrival at the
 *    target of the check that first got the 500: p50/p99/max, received of expected (bench/lib/alert-probes.ts).
 *  - overview: every S seconds, the requests the dashboard's overview screen makes on load, with the signed-in session:
 *    the session check, then the rest at once, as the browser sends them (bench/lib/overview-screen.ts): p50/p99/max of
 *    the whole screen, and p99 of GET /monitors/overview alone.
 * The probes' 200s (P / interval checks/s) are in the first window's CPU, not in its checks counted; stored results count
 * the N monitors only.
 *
 * Usage: bun bench/scale.ts [--monitors 0,2000] [--interval 20] [--warmup 30] [--window 50]
 *          [--cpu-prof DIR] (Bun's sampling profiler: .cpuprofile and markdown in DIR at shutdown, for the whole run of
 *            the main thread, and thread-<n>.cpuprofile of each check thread (CHECK_THREADS_CPU_PROF); the line then
 *            ends with the checks of the whole run and the window's bounds and checks, for
 *            bench/profile-breakdown.ts --checks, or --from/--to/--checks for the window alone)
 *          [--pg-stats] (restarts the embedded PostgreSQL once with pg_stat_statements and prints its top statements)
 *          [--keep] (keep the data directory) [--smol] (run the all-in-one with `bun --smol`: a smaller heap, collected more often)
 *          [--probes P] (webhook probes, default 20) [--overview-every S] (seconds, default 2); both 0, or --cpu-prof: no second window
 *          [--concurrency C] (the all-in-one worker's CONCURRENCY) [--target-delay MS] (the target answers after MS ms)
 *          [--heap-probe DIR] (bench/heap-probe.ts in every JavaScript thread: heap lines in DIR/n<N>/, every 10 s)
 *          [--heap-probe-gc] (the probe also collects fully and records the live heap after it: not for PSS figures)
 *          [--env K=V,K=V] (more variables for the all-in-one, e.g. an A/B of a setting on the same code)
 *          [--pg-set name=value,…] (restarts the embedded PostgreSQL once with these settings, e.g. shared_buffers=32MB)
 *          [--pg-nice N] (the embedded PostgreSQL's postmaster and every process it has, once started, at niceness N; the
 *            backends it forks later inherit it: whether the checks keep their schedule when the database yields the cores)
 *          [--result-key job] (the raw results' unique key as before migration 20261127140000, (job_id, scheduled_at),
 *            set before the monitors are created: an A/B against today's (scheduled_at, job_id))
 *          [--raw-indexes two|one] (the raw results' per-monitor indexes, set before the monitors are created: an A/B of
 *            the indexes each insert maintains. Today one, (org_id, monitor_id, scheduled_at desc); `two` adds back
 *            (monitor_id, location, scheduled_at desc) as before migration 20261127180000; `one` has (monitor_id,
 *            scheduled_at desc, location) alone instead)
 *          [--restart-after-create] (stop the all-in-one once the monitors are created and start it again on the same
 *            DATA_DIR before the warm-up: memory figures of a service that did not take the create requests, since with
 *            npm start's MIMALLOC_PURGE_DELAY=-1 Bun's PSS is its high-water mark)
 *          [--memory-every S] (every S seconds of the first window, a line with the time into it, Bun's PSS (its anonymous
 *            part: heaps and the allocator's memory) and PostgreSQL's: whether memory levels off over a long window; and
 *            Bun's and PostgreSQL's CPU per check since the line before: whether the cost moves)
 *          [--timeline FILE] (the first window's interval deviations per second, to FILE.n<N>: when the schedule slipped;
 *            beside each second the CPU of Bun's main thread, its check threads, PostgreSQL and the machine's idle, the
 *            check threads' slots in use and results waiting for the bus, the due checks the scheduler keeps back,
 *            PostgreSQL's busy backends by wait event, autovacuum workers with their table, and PostgreSQL's CPU by role
 *            (closer, ingest, autovacuum, background processes, other client statements; per process, by the statement
 *            it ran last): why it slipped. A slip shows twice: where checks ran late, and one interval later, where the
 *            next checks ran on time after them)
 *            Together they fix the capacity at C × 1000 / MS checks/s, small enough to pass on a loaded machine; a size
 *            written `1.5x` is then 1.5 × that capacity × the interval (the overload point of #24 goal 3).
 * Linux only (/proc). N = 0 gives the base, so (PSS at N − PSS at 0) / N is the memory per monitor.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { setPriority, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import postgres from "postgres";
import { PROBE_RULE, startAlertProbes } from "./lib/alert-probes.ts";
import { startArrivalTarget } from "./lib/arrivals.ts";
import { OVERVIEW_SCREEN_CALLS, pollOverviewScreen } from "./lib/overview-screen.ts";
import { rawIndexesOf, setRawIndexes, type RawIndexes } from "./lib/raw-indexes.ts";
import { loadAverage, pssKb, pssKbAsync, pssPartsKb, pssPartsKbAsync, readText, stat, threadsCpu, threadsPerUnit, TICK } from "./lib/proc.ts";
import { freePort } from "../tests/support/free-port.ts";

const { values } = parseArgs({
  options: {
    monitors: { type: "string", default: "0,2000" },
    interval: { type: "string", default: "20" },
    warmup: { type: "string", default: "30" },
    window: { type: "string", default: "50" },
    "cpu-prof": { type: "string" },
    "pg-stats": { type: "boolean", default: false },
    keep: { type: "boolean", default: false },
    smol: { type: "boolean", default: false },
    concurrency: { type: "string" },
    "target-delay": { type: "string", default: "0" },
    probes: { type: "string", default: "20" },
    "overview-every": { type: "string", default: "2" },
    "heap-probe": { type: "string" },
    "heap-probe-gc": { type: "boolean", default: false },
    env: { type: "string", default: "" },
    "pg-set": { type: "string", default: "" },
    "pg-nice": { type: "string" },
    "result-key": { type: "string", default: "due" },
    "raw-indexes": { type: "string", default: "org" },
    timeline: { type: "string" },
    "memory-every": { type: "string", default: "0" },
    "restart-after-create": { type: "boolean", default: false },
  },
});
const INTERVAL_S = Number(values.interval);
const TARGET_DELAY_MS = Number(values["target-delay"]);
/** Checks/s the worker can run when every check waits TARGET_DELAY_MS at the target: the capacity `1.5x` refers to. */
const NOMINAL_CAPACITY = values.concurrency && TARGET_DELAY_MS > 0 ? (Number(values.concurrency) * 1000) / TARGET_DELAY_MS : null;
const SIZES = values.monitors.split(",").map((s) => {
  const text = s.trim();
  if (!text.endsWith("x")) return Number(text);
  if (NOMINAL_CAPACITY === null) throw new Error(`--monitors ${text} needs --concurrency and --target-delay (the capacity it multiplies)`);
  return Math.round(Number(text.slice(0, -1)) * NOMINAL_CAPACITY * INTERVAL_S);
});
const WARMUP_S = Number(values.warmup);
const WINDOW_S = Number(values.window);
const PROBES = Number(values.probes);
const OVERVIEW_EVERY_S = Number(values["overview-every"]);
const MEMORY_EVERY_S = Number(values["memory-every"]);
const root = `${import.meta.dir}/..`;
if (values["result-key"] !== "due" && values["result-key"] !== "job") throw new Error(`--result-key is due or job, not ${values["result-key"]}`);
const RAW = rawIndexesOf(values["raw-indexes"]);
const EXTRA_ENV = Object.fromEntries(
  values.env
    .split(",")
    .filter((kv) => kv.includes("="))
    .map((kv) => [kv.slice(0, kv.indexOf("=")).trim(), kv.slice(kv.indexOf("=") + 1)]),
);

// ---------------------------------------------------------------- the loopback target

const target = startArrivalTarget(TARGET_DELAY_MS);

/**
 * The target records an arrival when its handler runs, on this process's event loop: a stall here (a collection, a
 * slow /proc walk) would delay the recorded arrivals and hold the service's checks open. The timeline prints the
 * loop's longest lateness each second, to tell such a stall from the service's own slip.
 */
const loopLag = (() => {
  const EVERY_MS = 10;
  let expected = performance.now() + EVERY_MS;
  let worst = 0;
  let windowWorst = 0;
  setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - expected);
    windowWorst = Math.max(windowWorst, now - expected);
    expected = now + EVERY_MS;
  }, EVERY_MS).unref();
  return {
    /** The longest lateness since the last call, in ms. */
    take(): number {
      const w = worst;
      worst = 0;
      return w;
    },
    /** The longest lateness since the last call (the window's, when called at its start and end), in ms. */
    windowWorst(): number {
      const w = windowWorst;
      windowWorst = 0;
      return w;
    },
  };
})();

// ---------------------------------------------------------------- /proc

function childrenOf(parent: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (pid > 0 && stat(pid)?.[0] === parent) out.push(pid);
  }
  return out;
}
/**
 * CPU ticks of the Bun process's main thread alone (its task whose id is the pid): the JavaScript thread of every role
 * except the checks when they run in worker threads (CHECK_THREADS). The process figure covers every thread.
 */
const mainThreadTicks = (pid: number) => {
  const f = (readText(`/proc/${pid}/task/${pid}/stat`) ?? "").split(") ")[1]?.split(" ") ?? [];
  return Number(f[11] ?? 0) + Number(f[12] ?? 0);
};

/** One second's sample for --timeline: CPU readings (ticks) and the last scraped gauges. */
interface Second {
  at: number;
  main: number;
  checkThreads: number;
  pg: number;
  /** /proc/stat: idle + iowait ticks of the whole machine. */
  idle: number;
  inFlight: number;
  publishing: number;
  /** The bench process's (the target's) longest event-loop lateness in the second before, ms. */
  benchLag: number;
  /** Due checks the scheduler keeps back (its queue full, or in-process ingest behind): watchpost_scheduler_waiting_checks. */
  keptBack: number;
  /** Cumulative buckets (le → count) of the due → published and due → started histograms, at the last scrape. */
  publishLag: Map<number, number>;
  startLag: Map<number, number>;
  /** PostgreSQL's busy backends at the sample, by what they wait on ("cpu" when on a core). */
  pgActive?: string;
  /** Each PostgreSQL process's CPU ticks and role (pgRoles): what of its CPU the closer, ingest or autovacuum took. */
  pgByPid: Map<number, { ticks: number; role: string }>;
}
const SECOND_COLUMNS =
  "bun main thread %, check threads %, pg %, machine idle % (of 2 cores: 200), slots in use, results publishing, due checks kept back, " +
  "the bench's (the target's) longest event-loop stall ms, " +
  "p99 due → published ms, p99 due → started ms (bucket bounds), pg busy backends, pg % by role";
/**
 * Each PostgreSQL process's role, from pg_stat_activity once a second: a client backend by the statement it runs or
 * ran last (the closer's statements write the rollups or take the watermark exclusively; ingest's insert raw results
 * and monitor state), other processes by their type. A process not seen yet (or gone: its ticks then count in the
 * postmaster's reaped children) is "other". The pool's connections serve every role, so a backend between statements
 * counts for the last one's ("client" when none of the above).
 */
const pgRoles = new Map<number, string>();
function roleOf(backendType: string, query: string): string {
  if (backendType === "autovacuum worker") return "autovacuum";
  if (backendType !== "client backend") return "background";
  if (/check_results_hourly|check_results_daily|rollup_watermark_exclusive|update rollup_watermark|brin_summarize|max_parallel_workers_per_gather/.test(query)) return "closer";
  // Ingest's statements; its lookup of the batch's monitors counted too, or the second it ends in reads as "client".
  if (/check_results|monitor_state|rollup_watermark_shared|rollup_late|^select id from monitors where id = any/.test(query)) return "ingest";
  return "client";
}
async function readPgRoles(sql: postgres.Sql): Promise<void> {
  const rows = await sql<{ pid: number; t: string; q: string }[]>`
    select pid, coalesce(backend_type, '') as t, coalesce(query, '') as q from pg_stat_activity where pid <> pg_backend_pid()`.catch(() => []);
  for (const r of rows) {
    const role = roleOf(r.t, r.q);
    // A pooled connection between statements shows its transaction's end: it keeps the role it had.
    if (role === "client" && /^\s*(commit|begin|rollback)\b/i.test(r.q) && pgRoles.has(r.pid)) continue;
    pgRoles.set(r.pid, role);
  }
}
/** Each PostgreSQL process's own ticks and role; key 0: the postmaster's reaped children (cutime + cstime). */
function pgTicksByPid(postmaster: number): Map<number, { ticks: number; role: string }> {
  const out = new Map<number, { ticks: number; role: string }>();
  const s = stat(postmaster);
  if (s) out.set(postmaster, { ticks: s[1], role: "other" }).set(0, { ticks: s[2], role: "other" });
  for (const child of childrenOf(postmaster)) out.set(child, { ticks: stat(child)?.[1] ?? 0, role: pgRoles.get(child) ?? "other" });
  return out;
}
/**
 * PostgreSQL's busy backends but this one, counted by wait event and what they run (a client's statement's first 60
 * characters, spaces as "_"; an autovacuum worker's table): "cpu[insert_into_check_results…]:2,Timeout.VacuumDelay(VACUUM
 * public.monitor_state):1".
 */
async function pgActivity(sql: postgres.Sql): Promise<string> {
  const rows = await sql<{ w: string; n: number }[]>`
    select coalesce(wait_event_type || '.' || wait_event, 'cpu')
      || case when backend_type = 'client backend' then '[' || left(regexp_replace(query, '\\s+', '_', 'g'), 60) || ']'
           else '(' || coalesce(substring(query from '^autovacuum: (.*)$'), backend_type) || ')' end as w,
      count(*)::int as n
    from pg_stat_activity where pid <> pg_backend_pid() and (state = 'active' or backend_type = 'autovacuum worker')
    group by 1 order by 2 desc`.catch(() => []);
  return rows.map((r) => `${r.w}:${r.n}`).join(",") || "-";
}
type Gauges = Pick<Second, "inFlight" | "publishing" | "keptBack" | "publishLag" | "startLag">;
function sampleSecond(bunPid: number, postmaster: number, g: Gauges): Second {
  const cpu = (readText("/proc/stat") ?? "").split("\n")[0]!.split(/\s+/).slice(1).map(Number);
  // One walk of /proc a second: PostgreSQL's total (pgTicks) is the sum of its processes' ticks.
  const pgByPid = pgTicksByPid(postmaster);
  return {
    at: performance.now(),
    main: mainThreadTicks(bunPid),
    checkThreads: threadsCpu(bunPid).get("Worker")?.ticks ?? 0,
    pg: [...pgByPid.values()].reduce((sum, x) => sum + x.ticks, 0),
    idle: (cpu[3] ?? 0) + (cpu[4] ?? 0),
    benchLag: loopLag.take(),
    ...g,
    pgByPid,
  };
}
/** The timeline's columns for the second starting at `at`: the CPU between the samples around it, in % of one core. */
function secondColumns(seconds: Second[], at: number): string {
  const i = seconds.findIndex((x) => x.at >= at + 1000);
  if (i < 1) return "";
  const [a, b] = [seconds[i - 1]!, seconds[i]!];
  const pct = (x: number) => ((x / TICK / ((b.at - a.at) / 1000)) * 100).toFixed(0);
  // Each process's ticks over the second, counted for the role it had at the second's end.
  const roles = new Map<string, number>();
  const add = (role: string, ticks: number) => roles.set(role, (roles.get(role) ?? 0) + ticks);
  for (const [pid, { ticks, role }] of b.pgByPid) if (pid !== 0) add(role, ticks - (a.pgByPid.get(pid)?.ticks ?? 0));
  // A process that exited in the second: its ticks move to the postmaster's reaped children, where only what it
  // took after the first sample is new (counted for its role then).
  const gone = [...a.pgByPid].filter(([pid]) => pid !== 0 && !b.pgByPid.has(pid));
  const reaped = (b.pgByPid.get(0)?.ticks ?? 0) - (a.pgByPid.get(0)?.ticks ?? 0) - gone.reduce((sum, [, x]) => sum + x.ticks, 0);
  if (reaped > 0) add(gone.length === 1 ? gone[0]![1].role : "other", reaped);
  const byRole = [...roles]
    .filter(([, ticks]) => ticks > 0)
    .map(([role, ticks]) => `${role}:${pct(ticks)}`)
    .join(",");
  const lags = `${bucketP99(a.publishLag, b.publishLag)} ${bucketP99(a.startLag, b.startLag)}`;
  return `${pct(b.main - a.main)} ${pct(b.checkThreads - a.checkThreads)} ${pct(b.pg - a.pg)} ${pct(b.idle - a.idle)} ${b.inFlight} ${b.publishing} ${b.keptBack} ${b.benchLag.toFixed(0)} ${lags} ${a.pgActive ?? "?"} ${byRole || "-"}`;
}

/** CPU ticks of PostgreSQL: the postmaster's own and reaped children's, plus every live backend's own. */
function pgTicks(postmaster: number): number {
  const s = stat(postmaster);
  if (!s) return 0;
  let ticks = s[1] + s[2];
  for (const child of childrenOf(postmaster)) ticks += stat(child)?.[1] ?? 0;
  return ticks;
}
const pgPssKb = (postmaster: number) => [postmaster, ...childrenOf(postmaster)].reduce((sum, pid) => sum + pssKb(pid), 0);
/** The same off the event loop, for the samples taken while the target serves checks. */
const pgPssKbAsync = async (postmaster: number) => (await Promise.all([postmaster, ...childrenOf(postmaster)].map(pssKbAsync))).reduce((a, b) => a + b, 0);
/** Where the PSS went at the end of the window: Bun's anonymous memory (heaps), PostgreSQL's shared memory and its process count. */
function pssSplit(bunPid: number, postmaster: number): string {
  const pg = [postmaster, ...childrenOf(postmaster)];
  const shmem = pg.reduce((sum, pid) => sum + pssPartsKb(pid).shmem, 0);
  return `bun anon ${(pssPartsKb(bunPid).anon / 1024).toFixed(0)} MB, pg shared ${(shmem / 1024).toFixed(0)} MB in ${pg.length} processes`;
}

// ---------------------------------------------------------------- one run

/** A histogram's cumulative buckets (upper bound in seconds → count), its series summed, from a Prometheus text exposition. */
function histogramBuckets(text: string, name: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const l of text.split("\n")) {
    if (!l.startsWith(`${name}_bucket{`)) continue;
    const le = /le="([^"]+)"/.exec(l)?.[1];
    if (!le) continue;
    const bound = le === "+Inf" ? Infinity : Number(le);
    out.set(bound, (out.get(bound) ?? 0) + Number(l.slice(l.lastIndexOf(" ") + 1)));
  }
  return out;
}
/** The bucket bound (ms) holding the p99 of the observations between two scrapes; "-" when there were none. */
function bucketP99(a: Map<number, number>, b: Map<number, number>): string {
  const bounds = [...b.keys()].sort((x, y) => x - y);
  const total = (b.get(Infinity) ?? 0) - (a.get(Infinity) ?? 0);
  if (total <= 0) return "-";
  const bound = bounds.find((le) => (b.get(le) ?? 0) - (a.get(le) ?? 0) >= 0.99 * total)!;
  return bound === Infinity ? ">max" : `≤${Math.round(bound * 1000)}`;
}

/** The sum of a gauge's series in a Prometheus text exposition. */
const gaugeSum = (text: string, name: string) =>
  text
    .split("\n")
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);

interface Started {
  proc: ReturnType<typeof Bun.spawn>;
  url: string;
  /** The all-in-one's /metrics (its own port). */
  metricsUrl: string;
  pgUrl: string;
  dataDir: string;
}

async function startAllInOne(dataDir: string, pgPort: number, profileDir?: string, probeDir?: string): Promise<Started> {
  const port = freePort();
  const metricsPort = freePort();
  const prof = profileDir ? ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${profileDir}`] : [];
  const probe = probeDir ? ["--preload", "./bench/heap-probe.ts"] : [];
  // As `npm start` runs it (scripts/start.sh): with the runtime settings of scripts/runtime-env.sh, which --env overrides.
  const bun = ["bun", ...(values.smol ? ["--smol"] : []), ...prof, ...probe, "scripts/start.ts"];
  const proc = Bun.spawn(["bash", "-c", 'source scripts/runtime-env.sh && exec "$@"', "bash", ...bun], {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      HOST: "127.0.0.1",
      EMBEDDED_PG_PORT: String(pgPort),
      LOG_LEVEL: "warn",
      SECRET_KEY: "bench-scale-secret-key-0123456789abcdef",
      RATE_LIMIT_PER_ORG: "100000000",
      RATE_LIMIT_PER_SESSION: "100000000",
      NATS_URL: "",
      DATABASE_URL: "",
      ...(values.concurrency ? { CONCURRENCY: values.concurrency } : {}),
      ...(probeDir ? { HEAP_PROBE_DIR: probeDir, HEAP_PROBE_GC: values["heap-probe-gc"] ? "1" : "0" } : {}),
      ...(profileDir ? { CHECK_THREADS_CPU_PROF: profileDir } : {}),
      ...EXTRA_ENV,
    },
    stdout: "inherit",
    stderr: "inherit",
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (await fetch(`${url}/readyz`).then((r) => r.ok).catch(() => false)) break;
    if (proc.exitCode !== null || i > 600) throw new Error(`the all-in-one did not become ready (exit ${proc.exitCode})`);
    await Bun.sleep(100);
  }
  return { proc, url, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`, pgUrl: `postgres://postgres:watchpost@127.0.0.1:${pgPort}/watchpost`, dataDir };
}

async function stop(s: Started) {
  s.proc.kill("SIGTERM");
  const timeout = setTimeout(() => s.proc.kill("SIGKILL"), 60_000);
  await s.proc.exited;
  clearTimeout(timeout);
}

/** The first owner (POST /setup) and its session: cookie, the organisation (as the dashboard sends it) and CSRF header for the writes. */
async function signIn(url: string): Promise<Record<string, string>> {
  const res = await fetch(`${url}/api/v1/setup`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: url },
    body: JSON.stringify({ email: "bench@example.test", password: "bench password 1", name: "Bench", org_name: "Bench" }),
  });
  if (res.status !== 201) throw new Error(`setup: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { csrf_token: string; org_id: string };
  const cookie = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  return { cookie, "x-org-id": body.org_id, "x-csrf-token": body.csrf_token, "content-type": "application/json", origin: url };
}

async function createMonitors(url: string, headers: Record<string, string>, n: number): Promise<number> {
  const t0 = performance.now();
  for (let done = 0; done < n; done += 1000) {
    const monitors = Array.from({ length: Math.min(1000, n - done) }, (_, k) => ({
      name: `m${done + k}`,
      type: "http",
      config: { url: target.url(done + k) },
      interval_seconds: INTERVAL_S,
      timeout_ms: 5000,
    }));
    const res = await fetch(`${url}/api/v1/monitors/bulk`, { method: "POST", headers, body: JSON.stringify({ monitors }) });
    if (res.status !== 201) throw new Error(`bulk create: ${res.status} ${(await res.text()).slice(0, 500)}`);
  }
  return (performance.now() - t0) / 1000;
}

function postmasterOf(dataDir: string): number {
  return Number((readText(join(dataDir, "postgres", "postmaster.pid")) ?? "").split("\n")[0]);
}

/** Restarts the all-in-one once with PostgreSQL settings changed (ALTER SYSTEM): --pg-set, and pg_stat_statements for --pg-stats. */
async function restartWithPgSettings(s: Started, probeDir?: string): Promise<Started> {
  const sql = postgres(s.pgUrl, { max: 1, onnotice: () => {} });
  const settings: [string, string][] = values["pg-set"]
    .split(",")
    .filter((kv) => kv.includes("="))
    .map((kv) => [kv.slice(0, kv.indexOf("=")).trim(), kv.slice(kv.indexOf("=") + 1).trim()]);
  if (values["pg-stats"]) settings.push(["shared_preload_libraries", "pg_stat_statements"], ["pg_stat_statements.track", "all"]);
  for (const [name, value] of settings) await sql.unsafe(`alter system set ${name.replace(/[^a-z_.]/g, "")} = '${value.replaceAll("'", "''")}'`);
  await sql.end();
  await stop(s);
  const pgPort = Number(new URL(s.pgUrl).port);
  const again = await startAllInOne(s.dataDir, pgPort, values["cpu-prof"], probeDir);
  if (values["pg-stats"]) {
    const sql2 = postgres(again.pgUrl, { max: 1, onnotice: () => {} });
    await sql2`create extension if not exists pg_stat_statements`;
    await sql2.end();
  }
  return again;
}

/** --result-key job: the down section of migration 20261127140000 (the scheduler's housekeeping then finds no new key to build). */
async function withOldResultKey(pgUrl: string) {
  const migration = readFileSync(join(root, "db", "migrations", "20261127140000_check_results_key_due_first.sql"), "utf8");
  const sql = postgres(pgUrl, { max: 1, onnotice: () => {} });
  await sql.unsafe(migration.split("-- migrate:down")[1]!);
  await sql.end();
}

/** --raw-indexes: the raw results' per-monitor indexes for an A/B (bench/lib/raw-indexes.ts). */
async function withRawIndexes(pgUrl: string, which: RawIndexes) {
  const sql = postgres(pgUrl, { max: 1, onnotice: () => {} });
  await setRawIndexes(sql, which);
  await sql.end();
}

type Probes = Awaited<ReturnType<typeof startAlertProbes>>;

/**
 * Goal 1's webhook and overview figures under the same load, in a second window right after the first, so the screen
 * loads (each runs the overview's queries over every monitor) do not weigh on the figures above; its CPU beside the
 * first window's shows what they add.
 */
async function underLoadWindow(url: string, headers: Record<string, string>, probes: Probes, n: number, bunPid: number, postmaster: number) {
  const from = performance.now();
  const bun0 = stat(bunPid)!;
  const pg0 = pgTicks(postmaster);
  // Each probe's first failing check must land inside the window: flips end an interval (and 5 s) before it does.
  probes.flip(from, Math.max(0, (WINDOW_S - INTERVAL_S - 5) * 1000));
  const screens = OVERVIEW_EVERY_S > 0 ? pollOverviewScreen(url, { cookie: headers.cookie!, "x-org-id": headers["x-org-id"]! }, OVERVIEW_EVERY_S * 1000) : null;
  await Bun.sleep(WINDOW_S * 1000);
  const to = performance.now();
  const bunTicks = stat(bunPid)![1] - bun0[1];
  const pgTicksUsed = pgTicks(postmaster) - pg0;
  const screen = await screens?.stop();
  const alerts = await probes.stats(to, 10_000);
  const windowS = (to - from) / 1000;
  const percent = (ticks: number) => ((ticks / TICK / windowS) * 100).toFixed(1);
  const ms = (v: number) => (Number.isNaN(v) ? "-" : `${v.toFixed(0)} ms`);
  console.log(
    [
      `  under load (a second ${WINDOW_S} s window: checks/s ${(target.window(n, from, to, INTERVAL_S * 1000).arrivals / windowS).toFixed(1)}, CPU bun ${percent(bunTicks)} % pg ${percent(pgTicksUsed)} %)`,
      PROBES > 0
        ? `webhook after the first failing answer p50 ${ms(alerts.p50)} p99 ${ms(alerts.p99)} max ${ms(alerts.max)}, ${alerts.received} of ${alerts.expected} received (${PROBES} probes; rule: ${PROBE_RULE})`
        : "no webhook probes",
      screen
        ? `overview screen (${OVERVIEW_SCREEN_CALLS} requests) p50 ${ms(screen.p50)} p99 ${ms(screen.p99)} max ${ms(screen.max)} over ${screen.loads} loads every ${OVERVIEW_EVERY_S} s${screen.failed ? `, ${screen.failed} failed` : ""} (GET /monitors/overview alone p99 ${ms(screen.overviewP99)})`
        : "overview screen not loaded",
      `load average ${loadAverage()}`,
    ].join(" | "),
  );
}

/** --pg-nice: the embedded PostgreSQL's processes at that niceness (its later backends inherit the postmaster's). */
function renicePg(dataDir: string): void {
  if (values["pg-nice"] === undefined) return;
  const postmaster = postmasterOf(dataDir);
  for (const pid of [postmaster, ...childrenOf(postmaster)]) setPriority(pid, Number(values["pg-nice"]));
}

async function run(n: number) {
  target.reset();
  const dataDir = mkdtempSync(join(tmpdir(), "wp-scale-"));
  const probeDir = values["heap-probe"] ? join(values["heap-probe"], `n${n}`) : undefined;
  const restart = values["pg-stats"] || values["pg-set"] !== "";
  let s = await startAllInOne(dataDir, freePort(), restart ? undefined : values["cpu-prof"], restart ? undefined : probeDir);
  let probes: Probes | null = null;
  try {
    if (restart) s = await restartWithPgSettings(s, probeDir);
    if (values["result-key"] === "job") await withOldResultKey(s.pgUrl);
    if (RAW !== "org") await withRawIndexes(s.pgUrl, RAW);
    renicePg(dataDir);
    const headers = await signIn(s.url);
    const createS = await createMonitors(s.url, headers, n);
    if (values["restart-after-create"]) {
      await stop(s);
      s = await startAllInOne(dataDir, Number(new URL(s.pgUrl).port), values["cpu-prof"], probeDir);
      renicePg(dataDir);
    }
    probes = await startAlertProbes(s.url, headers, PROBES, INTERVAL_S);
    await Bun.sleep(WARMUP_S * 1000);

    const sql = postgres(s.pgUrl, { max: 1, onnotice: () => {} });
    if (values["pg-stats"]) await sql`select pg_stat_statements_reset()`;
    const postmaster = postmasterOf(dataDir);
    const bunPid = s.proc.pid;
    const from = performance.now();
    const fromWall = new Date();
    const bun0 = stat(bunPid)!;
    const main0 = mainThreadTicks(bunPid);
    const threads0 = threadsCpu(bunPid);
    const pg0 = pgTicks(postmaster);
    // The bench's own process: the loopback target (and the probes' receiver) take CPU from the same two cores.
    const self0 = process.cpuUsage();
    const pssSamples: { bun: number; pg: number }[] = [];
    // The job queue of the local region (GET /regions: waiting and running jobs), to show whether it stays bounded.
    let maxBacklog = 0;
    // Where the checks wait: slots in use in the check threads and results waiting for the bus (every second).
    const gauges = { samples: 0, inFlight: 0, publishing: 0 };
    // With --timeline, the same gauges and the CPU of each side per second, set beside the slips.
    const seconds: Second[] = [];
    let lastGauges: Gauges = { inFlight: 0, publishing: 0, keptBack: 0, publishLag: new Map(), startLag: new Map() };
    const scraper = setInterval(() => {
      if (values.timeline) {
        const second = sampleSecond(bunPid, postmaster, lastGauges);
        seconds.push(second);
        void pgActivity(sql).then((a) => (second.pgActive = a));
        void readPgRoles(sql);
      }
      void fetch(s.metricsUrl)
        .then((r) => r.text())
        .then((t) => {
          gauges.samples++;
          lastGauges = {
            inFlight: gaugeSum(t, "watchpost_worker_in_flight"),
            publishing: gaugeSum(t, "watchpost_worker_publishing"),
            keptBack: gaugeSum(t, "watchpost_scheduler_waiting_checks"),
            publishLag: histogramBuckets(t, "watchpost_scheduler_publish_lag_seconds"),
            startLag: histogramBuckets(t, "watchpost_worker_start_lag_seconds"),
          };
          gauges.inFlight += lastGauges.inFlight;
          gauges.publishing += lastGauges.publishing;
        })
        .catch(() => {});
    }, 1000);
    let memoryLines = 0;
    let lastLine = { at: from, bun: bun0[1], pg: pg0, checks: target.total() };
    loopLag.windowWorst();
    // Everything here runs on the target's event loop: the PSS reads go to a thread, and the memory lines count
    // arrivals instead of walking them (a stall here would delay the recorded arrivals and hold checks open).
    const sampler = setInterval(async () => {
      const [bunPss, pgPss] = await Promise.all([pssKbAsync(bunPid), pgPssKbAsync(postmaster)]);
      pssSamples.push({ bun: bunPss, pg: pgPss });
      const now = performance.now();
      const into = (now - from) / 1000;
      if (MEMORY_EVERY_S > 0 && into >= (memoryLines + 1) * MEMORY_EVERY_S) {
        memoryLines++;
        const { bun, pg } = pssSamples.at(-1)!;
        const anon = (await pssPartsKbAsync(bunPid)).anon;
        // CPU per check since the last line: how the cost moves over a long window (PostgreSQL's, as its indexes grow).
        const line = { at: now, bun: stat(bunPid)![1], pg: pgTicks(postmaster), checks: target.total() };
        const checks = line.checks - lastLine.checks;
        const perCheck = (ticks: number) => (checks > 0 ? ((ticks / TICK) * 1000) / checks : 0).toFixed(3);
        console.log(
          `  memory at ${into.toFixed(0)} s: Bun PSS ${(bun / 1024).toFixed(0)} MB (anon ${(anon / 1024).toFixed(0)} MB), PostgreSQL ${(pg / 1024).toFixed(0)} MB | ` +
            `since the last line: ${checks} checks, CPU-ms per check Bun ${perCheck(line.bun - lastLine.bun)} PostgreSQL ${perCheck(line.pg - lastLine.pg)}`,
        );
        lastLine = line;
      }
      void fetch(`${s.url}/api/v1/regions`, { headers })
        .then((r) => r.json() as Promise<{ data: { backlog: number | null }[] }>)
        .then((r) => (maxBacklog = Math.max(maxBacklog, ...r.data.map((x) => x.backlog ?? 0))))
        .catch(() => {});
    }, 5000);
    await Bun.sleep(WINDOW_S * 1000);
    const stallMs = loopLag.windowWorst();
    clearInterval(sampler);
    clearInterval(scraper);
    const to = performance.now();
    const bun1 = stat(bunPid)!;
    const main1 = mainThreadTicks(bunPid);
    const threads1 = threadsCpu(bunPid);
    const pg1 = pgTicks(postmaster);
    const self1 = process.cpuUsage(self0);
    pssSamples.push({ bun: pssKb(bunPid), pg: pgPssKb(postmaster) });
    const split = pssSplit(bunPid, postmaster);

    // Arrivals inside the window, and the interval between consecutive arrivals of each monitor.
    const w = target.window(n, from, to, INTERVAL_S * 1000);
    if (values.timeline) {
      const lines = target.timeline(n, from, to, INTERVAL_S * 1000).map((line, i) => `${line} ${secondColumns(seconds, from + i * 1000)}`);
      await Bun.write(
        `${values.timeline}.n${n}`,
        `# window from ${new Date(performance.timeOrigin + from).toISOString()}: s arrivals p50 p99 max (ms) | over the second before: ${SECOND_COLUMNS}\n${lines.join("\n")}\n`,
      );
    }
    const inWindow = w.arrivals;
    const windowS = (to - from) / 1000;
    const achieved = inWindow / windowS;
    const expected = n / INTERVAL_S;
    const stored = await sql<{ status: string; n: number }[]>`
      select status, count(*)::int as n from check_results
      where checked_at >= ${fromWall} and checked_at < ${new Date(fromWall.getTime() + windowS * 1000)} and monitor_id <> all(${probes.ids}::text[])
      group by status order by status`;
    const bunMs = ((bun1[1] - bun0[1]) / TICK) * 1000;
    const pgMs = ((pg1 - pg0) / TICK) * 1000;
    const mainMs = ((main1 - main0) / TICK) * 1000;
    const perCheck = (ms: number) => (inWindow > 0 ? (ms / inWindow).toFixed(3) : "-");
    const last = pssSamples.at(-1)!;
    const firstPss = pssSamples[0] ?? last;
    const mb = (kb: number) => (kb / 1024).toFixed(0);
    console.log(
      [
        `monitors ${n}`,
        `created in ${createS.toFixed(1)} s`,
        `checks/s ${achieved.toFixed(1)} of ${expected.toFixed(1)}`,
        `silent monitors ${w.silent}`,
        `job queue max ${maxBacklog}`,
        `worker slots in use (mean) ${(gauges.inFlight / Math.max(1, gauges.samples)).toFixed(0)}, results publishing ${(gauges.publishing / Math.max(1, gauges.samples)).toFixed(0)}`,
        `stored ${stored.map((r) => `${r.status} ${r.n}`).join(", ") || "none"}`,
        `interval deviation p50 ${w.deviationP50.toFixed(0)} ms p99 ${w.deviationP99.toFixed(0)} ms max ${Number.isNaN(w.deviationMax) ? "-" : w.deviationMax.toFixed(0)} ms`,
        `CPU bun ${((bunMs / 1000 / windowS) * 100).toFixed(1)} % (main thread ${((mainMs / 1000 / windowS) * 100).toFixed(1)} %) pg ${((pgMs / 1000 / windowS) * 100).toFixed(1)} %`,
        `CPU-ms per check ${perCheck(bunMs + pgMs)} (bun ${perCheck(bunMs)} + pg ${perCheck(pgMs)}; bun's main thread ${perCheck(mainMs)})`,
        `target (this bench's process) ${((self1.user + self1.system) / 10_000 / windowS).toFixed(1)} %, ${perCheck((self1.user + self1.system) / 1000)} ms per check`,
        `per check by thread: ${inWindow > 0 ? threadsPerUnit(threads0, threads1, inWindow) : "-"}`,
        `target's longest event-loop stall ${stallMs.toFixed(0)} ms`,
        `PSS bun ${mb(last.bun)} MB (${mb(firstPss.bun)} at window start) pg ${mb(last.pg)} MB total ${mb(last.bun + last.pg)} MB (${split})`,
        // The machine may be shared: a load average above the core count means every figure above was starved.
        `load average ${loadAverage()}`,
      ].join(" | "),
    );
    if (values["pg-stats"]) {
      const top = await sql<{ calls: number; ms: number; per: number; query: string }[]>`
        select calls::int, round(total_exec_time::numeric, 0)::float as ms, round((total_exec_time / nullif(calls, 0))::numeric, 3)::float as per,
               regexp_replace(left(query, 110), '\\s+', ' ', 'g') as query
        from pg_stat_statements order by total_exec_time desc limit 15`;
      console.log(`pg_stat_statements over the window (${windowS.toFixed(0)} s), by total execution time:`);
      for (const r of top) console.log(`  ${String(r.ms).padStart(7)} ms  ${String(r.calls).padStart(7)} calls  ${String(r.per).padStart(8)} ms/call  ${r.query}`);
    }
    await sql.end();
    // A profile covers the whole run and is read per load check: no second window in it.
    if (!values["cpu-prof"] && (PROBES > 0 || OVERVIEW_EVERY_S > 0)) await underLoadWindow(s.url, headers, probes, n, bunPid, postmaster);
    if (values["cpu-prof"]) {
      await stop(s);
      console.log(`  checks during the profiled run: ${target.total()}; the window: --from ${fromWall.getTime()} --to ${fromWall.getTime() + Math.round(windowS * 1000)} --checks ${inWindow}`);
    }
  } finally {
    probes?.stop();
    const postmaster = postmasterOf(dataDir);
    await stop(s);
    // The all-in-one stops its embedded PostgreSQL; if it had to be killed, stop that one too (fast shutdown).
    // Wait for it to exit before removing its directory: it writes its statistics file on the way out.
    const pgAlive = () => postmaster > 0 && readText(`/proc/${postmaster}/cmdline`)?.includes(dataDir);
    if (pgAlive()) process.kill(postmaster, "SIGINT");
    for (let i = 0; i < 100 && pgAlive(); i++) await Bun.sleep(100);
    if (!values.keep) rmSync(dataDir, { recursive: true, force: true });
  }
}

const capacity = NOMINAL_CAPACITY === null ? "" : `, capacity ${NOMINAL_CAPACITY} checks/s (concurrency ${values.concurrency}, target delay ${TARGET_DELAY_MS} ms)`;
console.log(`bench/scale${capacity}: interval ${INTERVAL_S} s, warm-up ${WARMUP_S} s, window ${WINDOW_S} s, ${navigator.hardwareConcurrency} cores, load average ${loadAverage(3)}`);
try {
  for (const n of SIZES) await run(n);
} finally {
  target.stop();
}
