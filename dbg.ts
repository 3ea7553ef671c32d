import { readFileSync } from "node:fs";
import { provisionOrg } from "./domain/accounts/provision.ts";
import { createTestDatabase } from "./tests/support/db.ts";
const db = await createTestDatabase();
const org = await provisionOrg(db.sql, { name: "D", email: "d@example.test", password: "dbg password 123", planId: "business" });
const port = 24000 + Math.floor(Math.random() * 3000);
const server = Bun.spawn(["bun", "api/main.ts"], { env: { ...process.env, DATABASE_URL: db.url, PORT: String(port), LOG_LEVEL: "warn", RATE_LIMIT_PER_ORG: "100000000", RATE_LIMIT_PER_IP: "100000000", SECRET_KEY: "bench-secret-key-0123456789abcdef0123" }, stdout: "inherit", stderr: "inherit" });
const url = `http://127.0.0.1:${port}`;
for (let i = 0; i < 100; i++) { if (await fetch(`${url}/readyz`).then((r) => r.ok).catch(() => false)) break; await Bun.sleep(100); }
const lines = readFileSync("/tmp/fuzz-trace.log", "utf8").trim().split("\n");
let n = 0;
for (const l of lines) {
  const [, method, u, ...rest] = l.split(" ");
  const path = new URL(u!).pathname + new URL(u!).search;
  if (method === "GET" || path.includes("heartbeat")) continue;
  const body = rest.join(" ");
  const t = performance.now();
  try {
    const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${org.api_key}`, "content-type": "application/json" }, body: body === "undefined" ? undefined : body, signal: AbortSignal.timeout(8000) });
    await res.text();
  } catch (e) { console.log("TIMEOUT/ERR", method, path, body.slice(0, 3000)); break; }
  const ms = performance.now() - t;
  if (ms > 1500) console.log("SLOW", Math.round(ms), method, path, body.slice(0, 500));
  n++;
}
console.log("replayed", n);
server.kill(); await db.drop();
