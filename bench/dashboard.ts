/**
 * Dashboard overview in headless Chromium against the real all-in-one server (API, scheduler,
 * worker, ingest and alerting in one process, as `bun run start` runs them), on its own database
 * (dropped after): N monitors with a week of results (one every --step minutes, loaded with COPY),
 * every monitor also checked live every --interval seconds against a loopback target.
 *
 * Prints
 * - the time from navigation to the first rows with their state counts, 24 h uptime and bars of the
 *   latest 60 results on screen (GET /monitors/overview), cold and warm (target < 1 s),
 * - the API calls the overview makes (target: a constant, not one per monitor), and when scrolling to the end;
 *   whether they are the requests bench/scale.ts replays for the screen (bench/lib/overview-screen.ts),
 * - the API calls each signed-in screen makes on first load (the dashboard's share of its rate-limit budget),
 * - whether the checks' schedule held while the page loaded: how many checks were due in the page-load
 *   windows, how many ran, and their start lag (checked_at − due time) next to a quiet baseline window.
 *
 * Usage: bun bench/dashboard.ts [--monitors 2000] [--days 7] [--step 5] [--interval 60] [--runs 5] [--settle 20]
 *        bun bench/dashboard.ts --short   (1 day of history, 2 warm runs: about a minute on this machine)
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { provisionOrg } from "../domain/accounts/provision.ts";
import type { Sql } from "../db/client.ts";
import { newId } from "../core/ids.ts";
import { closeRollups } from "../domain/results/rollup-closer.ts";
import { rebuildRollups } from "../domain/results/rollups.ts";
import { DAY_MS } from "../domain/results/segments.ts";
import { prng } from "../domain/results/test-fixtures.ts";
import { ensurePartition } from "../db/results/maintenance.ts";
import { distIsStale } from "../api/web/build.ts";
import { createTestDatabase } from "../tests/support/db.ts";
import { spawnRole } from "../tests/support/processes.ts";
import { launchChromium } from "../tests/web/browser.ts";
import { compareWithOverviewScreen } from "./lib/overview-screen.ts";

const { values } = parseArgs({
  options: {
    monitors: { type: "string", default: "2000" },
    days: { type: "string" },
    step: { type: "string", default: "5" },
    interval: { type: "string", default: "60" },
    runs: { type: "string" },
    settle: { type: "string", default: "20" },
    short: { type: "boolean", default: false },
  },
});
const MONITORS = Number(values.monitors);
const DAYS = Number(values.days ?? (values.short ? 1 : 7));
const STEP_MS = Number(values.step) * 60_000;
const INTERVAL_S = Number(values.interval);
const RUNS = Number(values.runs ?? (values.short ? 2 : 5));
const SETTLE_S = Number(values.settle);

const target = Bun.spawn(["bun", "-e", `const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("ok") }); console.log(s.port);`], { stdout: "pipe", stderr: "inherit" });
const targetPort = Number(await firstLine(target.stdout));
async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stream) {
    text += decoder.decode(chunk, { stream: true });
    if (text.includes("\n")) return text.split("\n")[0]!;
  }
  throw new Error("the target exited before printing its port");
}

async function insertMonitors(sql: Sql, orgId: string): Promise<string[]> {
  const ids = Array.from({ length: MONITORS }, () => newId("mon"));
  const rand = prng(7);
  for (let i = 0; i < ids.length; i += 500) {
    const slice = ids.slice(i, i + 500);
    await sql`
      with t as (
        select * from unnest(${slice}::text[], ${slice.map((_, j) => `Service ${i + j + 1}`)}::text[], ${slice.map(() => ["api", "web", "db", "edge"][Math.floor(rand() * 4)]!)}::text[],
                             ${slice.map(() => (rand() < 0.97 ? "up" : "down"))}::text[], ${slice.map(() => Math.floor(20 + rand() * 800))}::int[]) as t(id, name, tag, status, ms)
      ), m as (
        insert into monitors (id, org_id, name, type, config, interval_seconds, timeout_ms, regions, tags, status)
        select id, ${orgId}, name, 'http', ${sql.json({ url: `http://127.0.0.1:${targetPort}/` })}, ${INTERVAL_S}, 5000, array['local'], array[tag], status from t
        returning id
      )
      insert into monitor_state (monitor_id, status, last_checked_at, last_duration_ms) select t.id, t.status, now(), t.ms from t join m using (id)`;
  }
  return ids;
}

/** COPYs one result every STEP_MS over [start, end) for one monitor. */
async function copyResults(sql: Sql, orgId: string, monitorId: string, start: number, end: number, seed: number): Promise<number> {
  const rand = prng(seed);
  const stream = await sql`copy check_results (id, job_id, org_id, monitor_id, location, location_type, scheduled_at, checked_at, status, duration_ms, error, data) from stdin`.writable();
  let n = 0;
  let chunk = "";
  for (let t = start; t < end; t += STEP_MS, n++) {
    const x = rand();
    const status = x < 0.98 ? "up" : x < 0.99 ? "down" : "timeout";
    chunk += `\\N\tjob_${monitorId}_${t}\t${orgId}\t${monitorId}\tlocal\tregion\t${new Date(t).toISOString()}\t${new Date(t + 500).toISOString()}\t${status}\t${Math.floor(20 + rand() * 800)}\t\\N\t{}\n`;
  }
  await new Promise<void>((resolve, reject) => stream.end(chunk, (err?: Error | null) => (err ? reject(err) : resolve())));
  return n;
}

/** Checks due in [from, to) and how they ran: count, how many were stored, start lag percentiles. */
async function scheduleIn(sql: Sql, orgId: string, from: number, to: number) {
  const [r] = await sql<{ n: number; p50: number | null; p95: number | null; max: number | null }[]>`
    select count(*)::int as n,
           percentile_cont(0.5) within group (order by extract(epoch from checked_at - scheduled_at) * 1000) as p50,
           percentile_cont(0.95) within group (order by extract(epoch from checked_at - scheduled_at) * 1000) as p95,
           max(extract(epoch from checked_at - scheduled_at) * 1000) as max
    from check_results
    where org_id = ${orgId} and scheduled_at >= ${new Date(from)} and scheduled_at < ${new Date(to)} and job_id not like 'job\\_%'`;
  return { due: Math.round((MONITORS * (to - from)) / (INTERVAL_S * 1000)), ran: r!.n, p50: r!.p50, p95: r!.p95, max: r!.max };
}
const ms = (v: number | null) => (v == null ? "—" : `${Math.round(v)} ms`);

// Measure the built bundle from web/dist, not the API's first-request in-memory build.
if (distIsStale()) await Bun.$`bun ${join(import.meta.dir, "..", "scripts", "build-web.ts")}`.quiet();

const db = await createTestDatabase();
const email = `bench-${Date.now()}@example.test`;
const password = "bench-password-123";
let server: ReturnType<typeof spawnRole> | null = null;
try {
  const sql = db.sql;
  const { org_id: orgId } = await provisionOrg(sql, { name: "Bench", email, password, planId: "unlimited" });
  const t0 = performance.now();
  const ids = await insertMonitors(sql, orgId);
  const end = Math.floor(Date.now() / STEP_MS) * STEP_MS;
  const start = end - DAYS * DAY_MS;
  for (let t = start - DAY_MS; t <= end + DAY_MS; t += DAY_MS) await ensurePartition(sql, new Date(t).toISOString().slice(0, 10));
  let rows = 0;
  for (let i = 0; i < ids.length; i += 4) rows += (await Promise.all(ids.slice(i, i + 4).map((id, j) => copyResults(sql, orgId, id, start, end, i + j + 1)))).reduce((a, b) => a + b, 0);
  for (let i = 0; i < ids.length; i += 50) await rebuildRollups(sql, orgId, ids.slice(i, i + 50), new Date(start), new Date(end));
  // Plain PostgreSQL: the rollups closed up to where the scheduler's closer keeps them (30 s to 90 s behind now).
  await closeRollups(sql, new Date(), { maxSteps: 1_000_000 });
  await sql`vacuum analyze`;
  console.log(`loaded ${MONITORS} monitors and ${rows.toLocaleString("en")} results (${DAYS} days) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const port = 20000 + Math.floor(Math.random() * 20000);
  server = spawnRole("scripts/start.ts", {
    DATABASE_URL: db.url,
    PORT: String(port),
    HOST: "127.0.0.1",
    ALLOW_PRIVATE_IPS: "true",
    LOG_LEVEL: "warn",
    DATA_DIR: `/tmp/wp-bench-dashboard-${port}`,
    RATE_LIMIT_PER_ORG: "100000", RATE_LIMIT_PER_SESSION: "100000",
    RATE_LIMIT_PER_IP: "100000",
    RATE_LIMIT_SIGNIN_PER_IP: "100000",
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (await fetch(`${base}/healthz`).then((r) => r.ok, () => false)) break;
    if (i > 600) throw new Error(`the all-in-one did not start: ${JSON.stringify(server.lines.slice(-5))}`);
    await Bun.sleep(100);
  }
  // Let the scheduler reach its steady state (every monitor checked once), then keep a quiet baseline.
  console.log(`all-in-one up; ${MONITORS} monitors checked every ${INTERVAL_S} s (${(MONITORS / INTERVAL_S).toFixed(0)}/s); settling ${SETTLE_S} s…`);
  await Bun.sleep(SETTLE_S * 1000);
  const baselineFrom = Date.now();
  await Bun.sleep(10_000);
  const baselineTo = Date.now();

  const chromium = await launchChromium({ width: 1280, height: 900 });
  const loads: [number, number][] = [];
  try {
    const { context } = chromium;
    const signin = await context.request.post(`${base}/api/v1/auth/signin`, { data: { email, password } });
    if (!signin.ok()) throw new Error(`sign-in failed: ${signin.status()}`);
    const page = context.pages()[0] ?? (await context.newPage());
    const calls: string[] = [];
    const urls: string[] = [];
    page.on("request", (r) => {
      const u = new URL(r.url());
      if (!u.pathname.startsWith("/api/v1/") || u.pathname === "/api/v1/events") return;
      calls.push(`${r.method()} ${u.pathname}`);
      urls.push(`${u.pathname}${u.search}`);
    });
    const measure = async () => {
      calls.length = 0;
      urls.length = 0;
      const from = Date.now();
      const t = performance.now();
      await page.goto(`${base}/monitors`);
      await page.locator("[data-monitor-id]").first().waitFor();
      const rowsAt = performance.now() - t;
      await page.waitForFunction(
        () =>
          document.querySelector("[data-testid=state-counts]") &&
          [...document.querySelectorAll("[data-monitor-id] [data-testid=uptime-24h]")].some((c) => c.textContent?.includes("%")) &&
          document.querySelector("[data-monitor-id] .tick[data-result]"),
      );
      const uptimeAt = performance.now() - t;
      loads.push([from, Date.now()]);
      return { rowsAt, uptimeAt, calls: [...calls], urls: [...urls] };
    };
    const cold = await measure();
    const warm: number[] = [];
    for (let i = 0; i < RUNS; i++) warm.push((await measure()).uptimeAt);
    warm.sort((a, b) => a - b);
    const med = warm[Math.floor(warm.length / 2)]!;
    const rendered = await page.locator("[data-monitor-id]").count();
    const ticks = await page.locator("[data-monitor-id] .tick[data-result]").count();
    console.log(`first load (cold cache): rows ${cold.rowsAt.toFixed(0)} ms, rows with counts, 24 h uptime and bars ${cold.uptimeAt.toFixed(0)} ms (${ticks} result ticks drawn)`);
    console.log(`reload, median of ${RUNS}: rows with counts, 24 h uptime and bars ${med.toFixed(0)} ms (min ${warm[0]!.toFixed(0)}, max ${warm.at(-1)!.toFixed(0)}; target < 1000 ms) ${med < 1000 ? "OK" : "SLOW"}`);
    console.log(`API calls for the first screen: ${cold.calls.length} (${[...new Set(cold.calls)].join(", ")}) for ${MONITORS} monitors; ${rendered} rows in the DOM (virtualised)`);
    console.log(`  ${compareWithOverviewScreen(cold.urls)}`);

    // Scroll through the whole list: pages of 100 load as it nears the end; count calls and slow frames.
    calls.length = 0;
    const scrollFrom = Date.now();
    const scroll = await page.evaluate(async () => {
      const el = document.querySelector("[data-testid=monitor-scroll]") as HTMLElement;
      const frames: number[] = [];
      let last = performance.now();
      for (let i = 0; i < 600; i++) {
        el.scrollTop += 400;
        await new Promise((r) => requestAnimationFrame(r));
        const now = performance.now();
        frames.push(now - last);
        last = now;
        if (el.scrollTop + el.clientHeight >= el.scrollHeight - 2 && document.querySelector("[data-testid=monitor-count]")) {
          const loaded = el.scrollHeight / 52;
          if (loaded >= Number(document.querySelector("[data-testid=monitor-count]")!.textContent!.split(" ")[0])) break;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      frames.sort((a, b) => a - b);
      return { frames: frames.length, p50: frames[Math.floor(frames.length / 2)]!, p95: frames[Math.floor(frames.length * 0.95)]!, rows: document.querySelectorAll("[data-monitor-id]").length };
    });
    loads.push([scrollFrom, Date.now()]);
    console.log(`scrolled to the end of ${MONITORS}: ${calls.length} more API calls (${countCalls(calls)}), frame time p50 ${scroll.p50.toFixed(1)} ms, p95 ${scroll.p95.toFixed(1)} ms over ${scroll.frames} frames; ${scroll.rows} rows in the DOM`);

    // Requests per screen: each signed-in route from a fresh page load, until the network is quiet.
    const perScreen: string[] = [];
    for (const route of ["/monitors", `/monitors/${ids[0]}`, "/alerts", "/alert-rules", "/alert-channels", "/status-pages", "/incidents", "/org"]) {
      calls.length = 0;
      await page.goto(`${base}${route}`);
      // The live stream keeps a connection open, so "network idle" never comes: wait until no call for 1.5 s.
      for (let seen = -1; seen !== calls.length; ) {
        seen = calls.length;
        await Bun.sleep(1500);
      }
      perScreen.push(`${route.replace(ids[0]!, ":id")} ${calls.length}`);
    }
    console.log(`API requests per screen (first load, session check included; the SSE stream not counted): ${perScreen.join(", ")}`);
  } finally {
    await chromium.close();
  }

  // Results of checks due during the loads arrive within a timeout plus ingest; then compare with the baseline.
  await Bun.sleep(8_000);
  const baseline = await scheduleIn(sql, orgId, baselineFrom, baselineTo);
  const during = { due: 0, ran: 0, p50: 0, p95: 0, max: 0 };
  const perLoad = await Promise.all(loads.map(([a, b]) => scheduleIn(sql, orgId, a, b)));
  for (const l of perLoad) {
    during.due += l.due;
    during.ran += l.ran;
    during.p95 = Math.max(during.p95, l.p95 ?? 0);
    during.max = Math.max(during.max, l.max ?? 0);
  }
  const loadMs = loads.reduce((s, [a, b]) => s + (b - a), 0);
  const all = await scheduleIn(sql, orgId, Math.min(...loads.map((l) => l[0])), Math.max(...loads.map((l) => l[1])));
  console.log(`schedule, quiet 10 s baseline: ${baseline.ran} of ~${baseline.due} due checks ran, start lag p50 ${ms(baseline.p50)}, p95 ${ms(baseline.p95)}, max ${ms(baseline.max)}`);
  console.log(
    `schedule while the page loaded (${loads.length} loads, ${(loadMs / 1000).toFixed(1)} s in all): ${during.ran} of ~${during.due} due checks ran, start lag worst p95 ${ms(during.p95)}, max ${ms(during.max)}; whole measuring span p50 ${ms(all.p50)}, p95 ${ms(all.p95)}`,
  );
} finally {
  await server?.stop(5000);
  target.kill();
  await db.drop();
}

function countCalls(calls: string[]) {
  const counts = new Map<string, number>();
  for (const c of calls) counts.set(c, (counts.get(c) ?? 0) + 1);
  return [...counts].map(([k, v]) => `${v}× ${k}`).join(", ");
}
