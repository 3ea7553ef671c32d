import type { Sql } from "../db/client.ts";
import type { Logger } from "../core/log.ts";
import { pausingWindows } from "../db/queries/maintenance-windows.ts";
import {
  allSchedulable,
  type BucketDigest,
  reconcileBucketOf,
  schedulableByIds,
  type SchedulableRow,
  schedulableDigests,
  schedulableVersionsIn,
  versionResidue,
} from "../db/queries/scheduler.ts";
import type { MaintenanceGate } from "./maintenance-gate.ts";
import type { Scheduler } from "./scheduler.ts";

export interface SyncOptions {
  sql: Sql;
  scheduler: Scheduler;
  gate: MaintenanceGate;
  log: Logger;
  /** Full comparison with the table, a safety net under the notifications; default 30 s. */
  reconcileMs?: number;
  /** Notifications arriving within this window are read in one query; default 20 ms. */
  batchMs?: number;
}

export interface SyncHandle {
  /** Reads the changed monitors and windows now (tests; notifications do this on their own). */
  flush(): Promise<void>;
  reconcile(): Promise<void>;
  stop(): Promise<void>;
}

const CHUNK = 1000;

/**
 * Keeps the schedule equal to the monitors table: LISTEN wp_monitors (fed by a trigger on
 * every change that matters to scheduling) applies edits, pauses and deletions within
 * milliseconds; a periodic reconcile by (id, updated_at) repairs anything a dropped
 * connection made it miss. Maintenance windows that pause monitors follow wp_maintenance.
 */
export async function startSync(o: SyncOptions): Promise<SyncHandle> {
  const { sql, scheduler, gate, log } = o;
  const pendingMonitors = new Set<string>();
  const pendingOrgs = new Set<string>();
  let flushTimer: ReturnType<typeof setTimeout> | null = null;
  let flushing: Promise<void> = Promise.resolve();
  let stopped = false;
  let listening = 0;

  // The schedule's side of the reconcile's digests (db/queries/scheduler.ts), kept as monitors come and go: a
  // reconcile then compares 256 buckets, not every monitor, on the main thread.
  const held = new Map<number, BucketDigest>();
  const count = (id: string, version: number, sign: 1 | -1) => {
    const bucket = reconcileBucketOf(id);
    const d = held.get(bucket) ?? { count: 0, sum: 0 };
    d.count += sign;
    d.sum += sign * versionResidue(version);
    if (d.count === 0) held.delete(bucket);
    else held.set(bucket, d);
  };
  const put = (row: SchedulableRow) => {
    const before = scheduler.versionOf(row.id);
    scheduler.upsert(row);
    if (before !== undefined) count(row.id, before, -1);
    count(row.id, row.version, 1);
  };
  const drop = (id: string) => {
    const before = scheduler.versionOf(id);
    if (before === undefined) return;
    scheduler.remove(id);
    count(id, before, -1);
  };

  const applyIds = async (ids: string[]) => {
    for (let i = 0; i < ids.length; i += CHUNK) {
      const chunk = ids.slice(i, i + CHUNK);
      const rows = await schedulableByIds(sql, chunk);
      const found = new Set(rows.map((r) => r.id));
      for (const row of rows) put(row);
      for (const id of chunk) if (!found.has(id)) drop(id);
    }
  };

  const flush = (): Promise<void> => {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = null;
    flushing = flushing.then(async () => {
      if (stopped) return;
      const ids = [...pendingMonitors];
      const orgs = [...pendingOrgs];
      pendingMonitors.clear();
      pendingOrgs.clear();
      try {
        if (ids.length > 0) await applyIds(ids);
        for (const orgId of orgs) gate.replaceOrg(orgId, await pausingWindows(sql, orgId));
      } catch (err) {
        for (const id of ids) pendingMonitors.add(id);
        for (const org of orgs) pendingOrgs.add(org);
        log.warn({ op: "scheduler.sync", err }, "applying changes failed; retrying");
        later(1000);
      }
    });
    return flushing;
  };

  const later = (ms: number) => {
    if (!flushTimer && !stopped) flushTimer = setTimeout(() => void flush(), ms);
  };

  const reconcile = async () => {
    if (stopped) return;
    // Digests per bucket of ids first: at 100,000 monitors, reading every version held the main thread ~0.3 s every
    // 30 s (bench/reconcile.ts), a slip in the schedule each time; now only the buckets that differ are read.
    const stored = await schedulableDigests(sql);
    const differing = [...new Set([...stored.keys(), ...held.keys()])].filter((b) => {
      const s = stored.get(b);
      const h = held.get(b);
      return s?.count !== h?.count || s?.sum !== h?.sum;
    });
    const changed: string[] = [];
    if (differing.length > 0) {
      const versions = await schedulableVersionsIn(sql, differing);
      // Held monitors of these buckets still in the table; fewer than held means some are gone, found in one pass.
      let stillThere = 0;
      for (const [id, version] of versions) {
        const at = scheduler.versionOf(id);
        if (at !== undefined) stillThere++;
        if (at !== version) changed.push(id);
      }
      if (stillThere < differing.reduce((n, b) => n + (held.get(b)?.count ?? 0), 0)) {
        const reread = new Set(differing);
        const gone: string[] = [];
        scheduler.eachVersion((id) => void (reread.has(reconcileBucketOf(id)) && !versions.has(id) && gone.push(id)));
        for (const id of gone) drop(id);
      }
    }
    await applyIds(changed);
    gate.replaceAll(await pausingWindows(sql, null));
    if (changed.length > 0) log.info({ op: "scheduler.reconcile", changed: changed.length }, "reconcile applied missed changes");
  };

  // Listen before the first load, so nothing changed during the load is missed.
  const onListen = () => {
    listening++;
    // A reconnected LISTEN may have missed notifications.
    if (listening > 2) void reconcile().catch((err) => log.warn({ op: "scheduler.reconcile", err }, "reconcile failed"));
  };
  const monitorsSub = await sql.listen("wp_monitors", (id) => {
    pendingMonitors.add(id);
    later(o.batchMs ?? 20);
  }, onListen);
  const windowsSub = await sql.listen("wp_maintenance", (orgId) => {
    pendingOrgs.add(orgId);
    later(o.batchMs ?? 20);
  }, onListen);

  for await (const page of allSchedulable(sql)) for (const row of page) put(row);
  gate.replaceAll(await pausingWindows(sql, null));
  await flush();

  const reconcileTimer = setInterval(
    () => void reconcile().catch((err) => log.warn({ op: "scheduler.reconcile", err }, "reconcile failed")),
    o.reconcileMs ?? 30_000,
  );

  return {
    flush,
    reconcile,
    async stop() {
      stopped = true;
      clearInterval(reconcileTimer);
      if (flushTimer) clearTimeout(flushTimer);
      await Promise.all([monitorsSub.unlisten(), windowsSub.unlisten()]).catch(() => {});
      await flushing.catch(() => {});
    },
  };
}
