import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { Sql } from "../../db/client.ts";
import { createMemoryBus } from "../../core/bus/index.ts";
import { ManualClock, type Clock } from "../../core/clock.ts";
import { newId } from "../../core/ids.ts";
import { silentLogger } from "../../core/log.ts";
import { MaintenanceGate } from "../../scheduler/maintenance-gate.ts";
import { Scheduler } from "../../scheduler/scheduler.ts";
import { startSync } from "../../scheduler/sync.ts";

export const NATS_URL = process.env.TEST_NATS_URL ?? "nats://127.0.0.1:4222";

/** An organisation row without users (scheduling tests need only the id). */
export async function insertOrg(sql: Sql, planId = "unlimited"): Promise<string> {
  const id = newId("org");
  await sql`insert into organisations (id, name, plan_id) values (${id}, ${"Org " + id.slice(-6)}, ${planId})`;
  return id;
}

export interface TestMonitor {
  type?: string;
  config?: Record<string, unknown>;
  interval_seconds?: number;
  timeout_ms?: number;
  regions?: string[];
  runner_ids?: string[];
  tags?: string[];
  paused?: boolean;
  suspended?: boolean;
}

/** Inserts monitors straight into the table (bulk, one statement), returning their ids in order. */
export async function insertMonitors(sql: Sql, orgId: string, specs: TestMonitor[]): Promise<string[]> {
  const rows = specs.map((s) => ({
    id: newId("mon"),
    org_id: orgId,
    name: "m",
    type: s.type ?? "http",
    config: JSON.stringify(s.config ?? { url: "http://127.0.0.1:9/" }),
    interval_seconds: s.interval_seconds ?? 30,
    timeout_ms: s.timeout_ms ?? 5000,
    regions: `{${(s.regions ?? ["local"]).join(",")}}`,
    runner_ids: `{${(s.runner_ids ?? []).join(",")}}`,
    tags: `{${(s.tags ?? []).join(",")}}`,
    paused: s.paused ?? false,
    suspended: s.suspended ?? false,
  }));
  for (let i = 0; i < rows.length; i += 2000) {
    const chunk = rows.slice(i, i + 2000);
    await sql`
      insert into monitors (id, org_id, name, type, config, interval_seconds, timeout_ms, regions, runner_ids, tags, paused, suspended)
      select id, org_id, name, type, config::jsonb, interval_seconds, timeout_ms, regions::text[], runner_ids::text[], tags::text[], paused, suspended
      from jsonb_to_recordset(${sql.json(chunk as never)}) as x(id text, org_id text, name text, type text, config text, interval_seconds int,
        timeout_ms int, regions text, runner_ids text, tags text, paused boolean, suspended boolean)`;
  }
  return rows.map((r) => r.id);
}

/** Marks a region online, as a worker heartbeat would. */
export async function markRegionOnline(sql: Sql, region: string, workerId = `test-${region}`): Promise<void> {
  await sql`
    insert into region_workers (worker_id, region, version, concurrency, started_at, last_seen_at)
    values (${workerId}, ${region}, 'test', 1, now(), now())
    on conflict (worker_id) do update set last_seen_at = now()`;
}

/** A bus prefix of its own per test run, so runs sharing one NATS server never collide. */
export const natsPrefix = (tag: string) => `t${tag}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}_`;

/** Deletes the streams of these prefixes. */
export async function dropNatsStreams(prefixes: string[]): Promise<void> {
  const nc = await connect({ servers: NATS_URL });
  try {
    const jsm = await jetstreamManager(nc);
    await Promise.all(prefixes.flatMap((p) => [`${p}JOBS`, `${p}RESULTS`]).map((n) => jsm.streams.delete(n).catch(() => false)));
  } finally {
    await nc.close();
  }
}

export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5000, what = "condition"): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await Bun.sleep(20);
  }
}

/**
 * A clock that runs `factor` times faster than the wall clock, from now on: a schedule and its workers on it
 * live through a 10 s interval (the shortest a monitor may have) in 10 / factor s. Whatever they measure on the
 * wall clock (bus sampling, leases, heartbeats) stays real, so size those in real time.
 */
export function fastClock(factor: number): Clock {
  const t0 = Date.now();
  return {
    now: () => t0 + (Date.now() - t0) * factor,
    setTimeout: (fn, ms) => setTimeout(fn, ms / factor),
    clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  };
}

/**
 * A leader's schedule kept in step with the monitors table by scheduler/sync.ts (loaded, then notified), with an
 * in-memory bus and every region and runner online; its reconcile runs only when called (`sync.reconcile()`).
 */
export async function syncedScheduler(sql: Sql): Promise<{ scheduler: Scheduler; sync: Awaited<ReturnType<typeof startSync>> }> {
  const scheduler = new Scheduler({
    bus: createMemoryBus(),
    clock: new ManualClock(Date.now()),
    log: silentLogger,
    placement: { regionOnline: () => true, runnerOnline: () => true },
    maintenance: new MaintenanceGate(),
    isLeader: () => true,
    backfillMs: 60_000,
  });
  const sync = await startSync({ sql, scheduler, gate: new MaintenanceGate(), log: silentLogger, reconcileMs: 3_600_000 });
  return { scheduler, sync };
}

/** Writes without the triggers, so the scheduler gets no notification: what a dropped LISTEN connection misses. */
export async function unnoticed(sql: Sql, write: (tx: Sql) => Promise<unknown>): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`set local session_replication_role = replica`;
    await write(tx as unknown as Sql);
  });
}
