import type { Subprocess } from "bun";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../support/free-port.ts";

/**
 * Servers the fault tests may stop and start: a PostgreSQL cluster and a NATS JetStream server
 * of their own, in a temporary directory on a spare loopback port. The machine's shared servers
 * (5432, 4222) are never touched.
 */

const PG_BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";
const asRoot = process.getuid?.() === 0;

/** PostgreSQL refuses to run as root: the tools run as the `postgres` user then. */
function pgCommand(args: string[]): string[] {
  return asRoot ? ["runuser", "-u", "postgres", "--", ...args] : args;
}

async function run(cmd: string[], what: string): Promise<void> {
  const p = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe" });
  const [code, out, err] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
  if (code !== 0) throw new Error(`${what} failed (${code}): ${(err || out).trim().slice(0, 1000)}`);
}

export interface PrivatePostgres {
  port: number;
  /** URL of a database on this cluster. */
  url(database: string): string;
  /** Fast shutdown: sessions are ended, nothing is lost. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the cluster for good and removes its directory. */
  destroy(): Promise<void>;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), "wp-fault-pg-"));
  if (asRoot) {
    const { uid, gid } = await pgIds();
    chownSync(dir, uid, gid);
  }
  const data = join(dir, "data");
  const port = freePort();
  await run(pgCommand([`${PG_BIN}/initdb`, "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"]), "initdb");
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses=127.0.0.1",
    "-c max_connections=400",
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
    "-c shared_buffers=64MB",
  ].join(" ");
  const start = () => run(pgCommand([`${PG_BIN}/pg_ctl`, "-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "30", "start"]), "pg_ctl start");
  await start();
  return {
    port,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    stop: () => run(pgCommand([`${PG_BIN}/pg_ctl`, "-D", data, "-m", "fast", "-w", "-t", "30", "stop"]), "pg_ctl stop"),
    start,
    async destroy() {
      await run(pgCommand([`${PG_BIN}/pg_ctl`, "-D", data, "-m", "immediate", "-w", "stop"]), "pg_ctl stop").catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function pgIds(): Promise<{ uid: number; gid: number }> {
  const p = Bun.spawn(["id", "-u", "postgres"], { stdout: "pipe" });
  const g = Bun.spawn(["id", "-g", "postgres"], { stdout: "pipe" });
  return { uid: Number((await new Response(p.stdout).text()).trim()), gid: Number((await new Response(g.stdout).text()).trim()) };
}

export interface PrivateNats {
  url: string;
  /** SIGTERM (JetStream flushes its store), then the same server again on the same port and store. */
  restart(downMs?: number): Promise<void>;
  destroy(): Promise<void>;
}

export async function startPrivateNats(): Promise<PrivateNats> {
  const dir = mkdtempSync(join(tmpdir(), "wp-fault-nats-"));
  const port = freePort();
  const url = `nats://127.0.0.1:${port}`;
  let proc: Subprocess | null = null;
  const start = async () => {
    proc = Bun.spawn(["nats-server", "-a", "127.0.0.1", "-p", String(port), "-js", "-sd", dir, "-l", join(dir, "nats.log")], { stdout: "ignore", stderr: "ignore" });
    const end = Date.now() + 15_000;
    for (;;) {
      try {
        const s = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
        s.end();
        return;
      } catch {
        if (proc.exitCode !== null) throw new Error(`nats-server exited ${proc.exitCode}: ${await Bun.file(join(dir, "nats.log")).text().catch(() => "")}`);
        if (Date.now() > end) throw new Error("nats-server did not start");
        await Bun.sleep(50);
      }
    }
  };
  const stop = async () => {
    const p = proc;
    proc = null;
    if (!p || p.exitCode !== null) return;
    p.kill("SIGTERM");
    const timer = setTimeout(() => p.kill("SIGKILL"), 10_000);
    await p.exited;
    clearTimeout(timer);
  };
  await start();
  return {
    url,
    async restart(downMs = 1000) {
      await stop();
      await Bun.sleep(downMs);
      await start();
    },
    async destroy() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface NatsCluster {
  /** Every server's client URL, comma-separated (NATS_URL for a cluster). */
  url: string;
  urls: string[];
  /** Stops one server (SIGKILL: a crash, not a shutdown). */
  kill(i: number): Promise<void>;
  start(i: number): Promise<void>;
  destroy(): Promise<void>;
}

/** Three (or `n`) JetStream servers routed into one cluster, each with its own store, on loopback. */
export async function startNatsCluster(n = 3): Promise<NatsCluster> {
  const dir = mkdtempSync(join(tmpdir(), "wp-fault-natsc-"));
  const ports = Array.from({ length: n }, () => ({ client: freePort(), cluster: freePort() }));
  const routes = ports.map((p) => `nats://127.0.0.1:${p.cluster}`).join(",");
  const procs: (Subprocess | null)[] = ports.map(() => null);
  const start = async (i: number) => {
    const p = ports[i]!;
    procs[i] = Bun.spawn(
      ["nats-server", "-a", "127.0.0.1", "-p", String(p.client), "-n", `wp-${i}`, "-js", "-sd", join(dir, `n${i}`), "--cluster_name", "wp-test", "--cluster", `nats://127.0.0.1:${p.cluster}`, "--routes", routes, "-l", join(dir, `n${i}.log`)],
      { stdout: "ignore", stderr: "ignore" },
    );
    const end = Date.now() + 15_000;
    for (;;) {
      try {
        const s = await Bun.connect({ hostname: "127.0.0.1", port: p.client, socket: { data() {} } });
        s.end();
        return;
      } catch {
        if (Date.now() > end) throw new Error(`nats-server ${i} did not start`);
        await Bun.sleep(50);
      }
    }
  };
  await Promise.all(ports.map((_, i) => start(i)));
  const urls = ports.map((p) => `nats://127.0.0.1:${p.client}`);
  return {
    url: urls.join(","),
    urls,
    async kill(i) {
      const p = procs[i];
      procs[i] = null;
      if (!p || p.exitCode !== null) return;
      p.kill("SIGKILL");
      await p.exited;
    },
    start,
    async destroy() {
      await Promise.all(
        procs.map(async (p) => {
          if (!p || p.exitCode !== null) return;
          p.kill("SIGKILL");
          await p.exited;
        }),
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
