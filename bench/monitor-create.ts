/**
 * Monitor creation at scale (#24 item 5): bulk create of N monitors, then single creates at that size, on a real
 * API server (child process) and PostgreSQL. Prints the bulk rate and the single-create latency at 0 and at N.
 * Usage: bun bench/monitor-create.ts [--monitors 10000] [--billing off|on]
 */
import { parseArgs } from "node:util";
import { provisionOrg } from "../domain/accounts/provision.ts";
import { createTestDatabase } from "../tests/support/db.ts";

const { values } = parseArgs({ options: { monitors: { type: "string", default: "10000" }, billing: { type: "string", default: "off" } } });
const total = Number(values.monitors);
const db = await createTestDatabase();
const org = await provisionOrg(db.sql, { name: "Bench", email: "bench@example.test", password: "bench password 1", planId: "business" });
if (values.billing === "on") await db.sql`update organisations set plan_id = 'unlimited' where id = ${org.org_id}`;

const port = 23000 + Math.floor(Math.random() * 5000);
const server = Bun.spawn(["bun", "api/main.ts"], {
  cwd: `${import.meta.dir}/..`,
  env: { ...process.env, DATABASE_URL: db.url, PORT: String(port), LOG_LEVEL: "warn", RATE_LIMIT_PER_ORG: "100000000", BILLING: values.billing, SECRET_KEY: "bench-secret-key-0123456789abcdef0123", ALLOW_PRIVATE_IPS: "true" },
  stdout: "inherit",
  stderr: "inherit",
});
const url = `http://127.0.0.1:${port}`;
for (let i = 0; i < 100; i++) {
  if (await fetch(`${url}/readyz`).then((r) => r.ok).catch(() => false)) break;
  await Bun.sleep(100);
}
const headers = { authorization: `Bearer ${org.api_key}`, "content-type": "application/json" };
const monitor = (i: number) => ({ name: `m${i}`, type: "http", config: { url: `http://127.0.0.1:9/${i}` }, interval_seconds: 20, timeout_ms: 5000 });
const post = async (path: string, body: unknown) => {
  const res = await fetch(`${url}/api/v1${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${await res.text()}`);
};
const singles = async (n: number, from: number) => {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await post("/monitors", monitor(from + i));
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(n * 0.5)]!, p99: times[Math.floor(n * 0.99)]! };
};
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

try {
  const empty = await singles(100, 1_000_000);
  const t0 = performance.now();
  for (let done = 0; done < total; done += 1000) await post("/monitors/bulk", { monitors: Array.from({ length: Math.min(1000, total - done) }, (_, i) => monitor(done + i)) });
  const bulkMs = performance.now() - t0;
  const full = await singles(100, 2_000_000);
  console.log(`billing ${values.billing}: bulk ${total} monitors in ${(bulkMs / 1000).toFixed(2)} s (${Math.round(total / (bulkMs / 1000))}/s)`);
  console.log(`single create with 100 stored: p50 ${fmt(empty.p50)}, p99 ${fmt(empty.p99)}; with ${total + 100} stored: p50 ${fmt(full.p50)}, p99 ${fmt(full.p99)}`);
} finally {
  server.kill();
  await server.exited;
  await db.drop();
}
