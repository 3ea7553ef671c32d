import type { Subprocess } from "bun";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadApiConfig } from "../../api/config.ts";
import { type ApiServer, buildApiDeps, startApiServer } from "../../api/server.ts";
import { type Bus, type Delivery, createMemoryBus } from "../../core/bus/index.ts";
import { type CheckJobMessage, type CheckResultMessage, jobId, runnerSubject } from "../../schemas/messages/check-messages.ts";
import { silentLogger } from "../../core/log.ts";
import { createTestPki } from "../../runner/checks/test-support/test-pki.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import type { Sql } from "../../db/client.ts";
import { type CallResult, makeOrg, TEST_SECRET_KEY } from "../support/api.ts";

const root = join(import.meta.dir, "..", "..");

export interface TlsApi {
  url: string;
  db: TestDatabase;
  bus: Bus;
  server: ApiServer;
  /** The test CA, for NODE_EXTRA_CA_CERTS. */
  caFile: string;
  caPem: string;
  /** The API's certificate and key, for other loopback servers the runner should trust. */
  leaf: { cert: string; key: string };
  stop(): Promise<void>;
}

/** The real API over HTTPS on loopback, with a certificate from a CA made for this test (openssl CLI). */
/** `bus`: the API's bus instead of an in-memory one (closed by stop()); `sql`: the API's database client (`db` stays the test's). */
export async function startTlsApi(opts: { jobAckWaitMs?: number; env?: Record<string, string>; tls?: boolean; bus?: Bus; sql?: (db: TestDatabase) => Promise<Sql> } = {}): Promise<TlsApi> {
  const pki = createTestPki();
  const leaf = pki.leaf(2);
  const dir = mkdtempSync(join(tmpdir(), "wp-runner-ca-"));
  const caFile = join(dir, "ca.pem");
  writeFileSync(caFile, pki.caPem);
  const db = await createTestDatabase();
  const bus = opts.bus ?? createMemoryBus({ jobs: { ackWaitMs: opts.jobAckWaitMs ?? 60_000 } });
  await bus.ensureTopology();
  const config = loadApiConfig({ DATABASE_URL: db.url, PORT: "0", HOST: "127.0.0.1", RATE_LIMIT_PER_ORG: "100000", RATE_LIMIT_PER_SESSION: "100000", RATE_LIMIT_PER_IP: "100000", LOG_LEVEL: "silent", ...opts.env });
  const server = await startApiServer(buildApiDeps({ sql: (await opts.sql?.(db)) ?? db.sql, config, log: silentLogger, secretKey: TEST_SECRET_KEY, bus }), opts.tls === false ? {} : { tls: leaf });
  return {
    url: server.url,
    db,
    bus,
    server,
    caFile,
    caPem: pki.caPem,
    leaf,
    async stop() {
      await server.stop(500);
      await bus.close();
      await db.drop();
      pki.cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** JSON client with an API key that trusts the test CA. */
export function caClient(api: Pick<TlsApi, "url" | "caPem">, key: string) {
  return async function call<T = any>(method: string, path: string, body?: unknown): Promise<CallResult<T>> {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${api.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), tls: { ca: api.caPem } } as RequestInit);
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as T, headers: res.headers };
  };
}

/** An organisation on `plan`, its API client and one runner with its token. */
export async function orgWithRunner(api: TlsApi, plan = "pro") {
  const org = await makeOrg(api.db.sql, plan);
  const call = caClient(api, org.api_key);
  const created = await call("POST", "/api/v1/runners", { name: "rack-1", location_label: "Berlin office" });
  if (created.status !== 201) throw new Error(`runner create failed ${created.status} ${JSON.stringify(created.body)}`);
  return { org, call, runner: created.body as { id: string; token: string } };
}

/** Publishes an http check job straight onto the runner's queue (what the scheduler does). */
export async function publishHttpJob(bus: Bus, orgId: string, runnerId: string, monitorId: string, url: string, extra: Partial<CheckJobMessage> = {}): Promise<CheckJobMessage> {
  const due = Date.now();
  const job: CheckJobMessage = {
    id: jobId(monitorId, runnerId, due),
    org_id: orgId,
    monitor_id: monitorId,
    location: runnerId,
    location_type: "runner",
    due_at: due,
    expires_at: due + 60_000,
    type: "http",
    config: { url },
    secrets_enc: null,
    timeout_ms: 5000,
    ...extra,
  };
  await bus.publishJob(runnerSubject(runnerId), job);
  return job;
}

/** Collects every result published on RESULTS (of one organisation when given). */
export async function collectResults(bus: Bus, orgId?: string) {
  const seen: CheckResultMessage[] = [];
  const handle = await bus.consumeResults<CheckResultMessage>(`test-${Math.random().toString(36).slice(2)}`, { maxWaitMs: 20, ...(orgId ? { filter: `results.${orgId}.>` as const } : {}) }, (batch: Delivery<CheckResultMessage>[]) => {
    for (const d of batch) seen.push(d.data);
  });
  return {
    seen,
    async waitFor(pred: (r: CheckResultMessage) => boolean, timeoutMs = 15_000): Promise<CheckResultMessage> {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const hit = seen.find(pred);
        if (hit) return hit;
        if (Date.now() > end) throw new Error(`no matching result within ${timeoutMs} ms; seen ${JSON.stringify(seen)}`);
        await Bun.sleep(25);
      }
    },
    stop: () => handle.stop(),
  };
}

export interface RunnerProcess {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  output(): string;
  exited: Promise<number>;
  waitForOutput(text: string, timeoutMs?: number): Promise<void>;
}

/**
 * Spawns `bun runner/main.ts` (or `command`, e.g. the compiled binary) with exactly the given
 * environment (plus PATH and HOME); `wrap` prefixes the command (a namespace).
 */
export function spawnRunner(env: Record<string, string>, opts: { wrap?: string[]; command?: string[] } = {}): RunnerProcess {
  const proc = Bun.spawn([...(opts.wrap ?? []), ...(opts.command ?? ["bun", join(root, "runner/main.ts")])], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let text = "";
  const decoder = new TextDecoder();
  const pump = async (s: ReadableStream<Uint8Array>) => {
    for await (const chunk of s) text += decoder.decode(chunk, { stream: true });
  };
  const pumped = Promise.all([pump(proc.stdout), pump(proc.stderr)]);
  return {
    proc,
    output: () => text,
    exited: proc.exited.then(async (code) => (await pumped, code)),
    async waitForOutput(needle, timeoutMs = 15_000) {
      const end = Date.now() + timeoutMs;
      while (!text.includes(needle)) {
        if (proc.exitCode !== null) throw new Error(`runner exited ${proc.exitCode} before printing "${needle}": ${text}`);
        if (Date.now() > end) throw new Error(`runner did not print "${needle}" within ${timeoutMs} ms: ${text}`);
        await Bun.sleep(25);
      }
    },
  };
}

/** A loopback target: /ok answers 200, /slow after `slowMs`, /sleep/<ms> after that long. Records the paths it saw. */
export function startTarget(slowMs = 10_000) {
  const hits: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    // Bun closes a connection idle for 10 s by default, checked on a 4 s tick, so a held /sleep/20000 could be cut
    // after only 8 s — the runner's grace period — and "finish" instead of being handed back. Never time out here.
    idleTimeout: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      hits.push(path);
      if (path.startsWith("/slow")) await Bun.sleep(slowMs);
      const sleep = /^\/sleep\/(\d+)$/.exec(path);
      if (sleep) await Bun.sleep(Number(sleep[1]));
      return new Response("ok");
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, hits, stop: () => server.stop(true) };
}
