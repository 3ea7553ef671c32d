/**
 * Dashboard overview in headless Chromium against a real API (its own database, dropped after):
 * 2,000 monitors with a week of results (one every 5 minutes, ~4 M rows, loaded with COPY).
 * Prints the time from navigation to the first rows with their 24 h uptime on screen (target
 * < 1 s), and the API calls the overview makes (target: a constant, not one per monitor).
 * Usage: bun bench/dashboard.ts [monitors=2000] [days=7] [intervalMinutes=5] [runs=5]
 */
import { join } from "node:path";
import { loadApiConfig } from "../api/config.ts";
import { distIsStale } from "../api/web/build.ts";
import { buildApiDeps, startApiServer } from "../api/server.ts";
import { provisionOrg } from "../core/accounts/provision.ts";
import type { Sql } from "../core/db/client.ts";
import { newId } from "../core/ids.ts";
import { silentLogger } from "../core/log.ts";
import { newResultUuid } from "../core/results/result-id.ts";
import { rebuildRollups } from "../core/results/rollups.ts";
import { DAY_MS } from "../core/results/segments.ts";
import { prng } from "../core/results/test-fixtures.ts";
import { ensurePartition } from "../db/results/maintenance.ts";
import { createTestDatabase } from "../tests/support/db.ts";
import { launchChromium } from "../tests/web/browser.ts";

const MONITORS = Number(process.argv[2] ?? 2000);
const DAYS = Number(process.argv[3] ?? 7);
const STEP_MS = Number(process.argv[4] ?? 5) * 60_000;
const RUNS = Number(process.argv[5] ?? 5);

async function insertMonitors(sql: Sql, orgId: string): Promise<string[]> {
  const ids = Array.from({ length: MONITORS }, () => newId("mon"));
  const rand = prng(7);
  for (let i = 0; i < ids.length; i += 500) {
    const slice = ids.slice(i, i + 500);
    await sql`
      insert into monitors (id, org_id, name, type, config, interval_seconds, timeout_ms, tags, status, last_duration_ms, last_checked_at)
      select id, ${orgId}, name, 'http', ${sql.json({ url: "https://example.com/" })}, ${STEP_MS / 1000}, 10000, array[tag], status, ms, now()
      from unnest(${slice}::text[], ${slice.map((_, j) => `Service ${i + j + 1}`)}::text[], ${slice.map(() => ["api", "web", "db", "edge"][Math.floor(rand() * 4)]!)}::text[],
                  ${slice.map(() => (rand() < 0.97 ? "up" : "down"))}::text[], ${slice.map(() => Math.floor(20 + rand() * 800))}::int[]) as t(id, name, tag, status, ms)`;
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
    chunk += `${newResultUuid(t)}\tjob_${monitorId}_${t}\t${orgId}\t${monitorId}\tlocal\tregion\t${new Date(t).toISOString()}\t${new Date(t + 500).toISOString()}\t${status}\t${Math.floor(20 + rand() * 800)}\t\\N\t{}\n`;
  }
  await new Promise<void>((resolve, reject) => stream.end(chunk, (err?: Error | null) => (err ? reject(err) : resolve())));
  return n;
}

// Measure the built bundle from web/dist, not the API's first-request in-memory build.
if (distIsStale()) await Bun.$`bun ${join(import.meta.dir, "..", "scripts", "build-web.ts")}`.quiet();

const db = await createTestDatabase();
const email = `bench-${Date.now()}@example.test`;
const password = "bench-password-123";
try {
  const sql = db.sql;
  const { org_id: orgId } = await provisionOrg(sql, { name: "Bench", email, password, planId: "unlimited" });
  let t0 = performance.now();
  const ids = await insertMonitors(sql, orgId);
  const end = Math.floor(Date.now() / STEP_MS) * STEP_MS;
  const start = end - DAYS * DAY_MS;
  for (let t = start - DAY_MS; t <= end + DAY_MS; t += DAY_MS) await ensurePartition(sql, new Date(t).toISOString().slice(0, 10));
  let rows = 0;
  for (let i = 0; i < ids.length; i += 4) rows += (await Promise.all(ids.slice(i, i + 4).map((id, j) => copyResults(sql, orgId, id, start, end, i + j + 1)))).reduce((a, b) => a + b, 0);
  for (let i = 0; i < ids.length; i += 50) await rebuildRollups(sql, orgId, ids.slice(i, i + 50), new Date(start), new Date(end));
  await sql`vacuum analyze`;
  console.log(`loaded ${MONITORS} monitors and ${rows.toLocaleString("en")} results (${DAYS} days) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const config = loadApiConfig({
    DATABASE_URL: db.url,
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "silent",
    RATE_LIMIT_PER_ORG: "100000",
    RATE_LIMIT_PER_IP: "100000",
    RATE_LIMIT_SIGNIN_PER_IP: "100000",
  });
  const server = await startApiServer(buildApiDeps({ sql, config, log: silentLogger, secretKey: "bench-secret-key-0123456789abcdef0123456789" }));
  const chromium = await launchChromium({ width: 1280, height: 900 });
  try {
    const { context } = chromium;
    const signin = await context.request.post(`${server.url}/api/v1/auth/signin`, { data: { email, password } });
    if (!signin.ok()) throw new Error(`sign-in failed: ${signin.status()}`);
    const page = context.pages()[0] ?? (await context.newPage());
    const calls: string[] = [];
    page.on("request", (r) => {
      const u = new URL(r.url());
      if (u.pathname.startsWith("/api/v1/") && u.pathname !== "/api/v1/events") calls.push(`${r.method()} ${u.pathname}`);
    });
    const measure = async () => {
      calls.length = 0;
      const t = performance.now();
      await page.goto(`${server.url}/monitors`);
      await page.locator("[data-monitor-id]").first().waitFor();
      const rowsAt = performance.now() - t;
      await page.waitForFunction(() => [...document.querySelectorAll("[data-monitor-id] [role=cell]:nth-child(4)")].some((c) => c.textContent?.includes("%")));
      return { rowsAt, uptimeAt: performance.now() - t, calls: [...calls] };
    };
    const cold = await measure();
    const warm: number[] = [];
    for (let i = 0; i < RUNS; i++) warm.push((await measure()).uptimeAt);
    warm.sort((a, b) => a - b);
    const med = warm[Math.floor(warm.length / 2)]!;
    const rendered = await page.locator("[data-monitor-id]").count();
    console.log(`first load (cold cache): rows ${cold.rowsAt.toFixed(0)} ms, rows with 24 h uptime ${cold.uptimeAt.toFixed(0)} ms`);
    console.log(`reload, median of ${RUNS}: rows with 24 h uptime ${med.toFixed(0)} ms (min ${warm[0]!.toFixed(0)}, max ${warm.at(-1)!.toFixed(0)}; target < 1000 ms) ${med < 1000 ? "OK" : "SLOW"}`);
    console.log(`API calls for the first screen: ${cold.calls.length} (${[...new Set(cold.calls)].join(", ")}) for ${MONITORS} monitors; ${rendered} rows in the DOM (virtualised)`);

    // Scroll through the whole list: pages of 100 load as it nears the end; count calls and slow frames.
    calls.length = 0;
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
    console.log(`scrolled to the end of ${MONITORS}: ${calls.length} more API calls (${PAGE(calls)}), frame time p50 ${scroll.p50.toFixed(1)} ms, p95 ${scroll.p95.toFixed(1)} ms over ${scroll.frames} frames; ${scroll.rows} rows in the DOM`);
  } finally {
    await chromium.close();
    await server.stop(1000);
  }
} finally {
  await db.drop();
}

function PAGE(calls: string[]) {
  const counts = new Map<string, number>();
  for (const c of calls) counts.set(c, (counts.get(c) ?? 0) + 1);
  return [...counts].map(([k, v]) => `${v}× ${k}`).join(", ");
}
