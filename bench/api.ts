/**
 * Requests/s and latency of an authenticated `GET /api/v1/api-keys?limit=20` against a real server.
 * Usage: bun bench/api.ts [--seconds 10] [--connections 50]
 * The server runs in a child process (its own core), autocannon drives it from this one.
 */
import autocannon from "autocannon";
import { parseArgs } from "node:util";
import { provisionOrg } from "../domain/accounts/provision.ts";
import { createTestDatabase } from "../tests/support/db.ts";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "10" }, connections: { type: "string", default: "50" } } });
const db = await createTestDatabase();
const org = await provisionOrg(db.sql, { name: "Bench", email: "bench@example.test", password: "bench password 1", planId: "business" });
for (let i = 0; i < 25; i++) await provisionOrg(db.sql, { name: "Bench", email: "bench@example.test", password: "bench password 1" }).catch(() => {});

const port = 23000 + Math.floor(Math.random() * 5000);
const server = Bun.spawn(["bun", "api/main.ts"], {
  cwd: `${import.meta.dir}/..`,
  env: { ...process.env, DATABASE_URL: db.url, PORT: String(port), LOG_LEVEL: "warn", RATE_LIMIT_PER_ORG: "100000000", SECRET_KEY: "bench-secret-key-0123456789abcdef0123" },
  stdout: "inherit",
  stderr: "inherit",
});
const url = `http://127.0.0.1:${port}`;
for (let i = 0; i < 100; i++) {
  if (await fetch(`${url}/readyz`).then((r) => r.ok).catch(() => false)) break;
  await Bun.sleep(100);
}

const run = (duration: number) =>
  autocannon({
    url: `${url}/api/v1/api-keys?limit=20`,
    connections: Number(values.connections),
    duration,
    headers: { authorization: `Bearer ${org.api_key}` },
  });

await run(2); // warm-up
const result = await run(Number(values.seconds));
const non2xx = result.non2xx;
console.log(
  JSON.stringify({
    bench: "api GET /api/v1/api-keys?limit=20",
    connections: Number(values.connections),
    seconds: Number(values.seconds),
    requests_per_s: Math.round(result.requests.average),
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    non_2xx: non2xx,
    errors: result.errors,
    target: ">= 5000 req/s, p99 < 20 ms",
  }),
);
server.kill("SIGTERM");
await server.exited;
await db.drop();
