import type { Sql } from "../db/client.ts";
import type { Logger } from "../core/log.ts";
import { pausingWindows } from "../db/queries/maintenance-windows.ts";
import { allSchedulable, schedulableByIds, schedulableVersions } from "../db/queries/scheduler.ts";
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

  const applyIds = async (ids: string[]) => {
    for (let i = 0; i < ids.length; i += CHUNK) {
      const chunk = ids.slice(i, i + CHUNK);
      const rows = await schedulableByIds(sql, chunk);
      const found = new Set(rows.map((r) => r.id));
      for (const row of rows) scheduler.upsert(row);
      for (const id of chunk) if (!found.has(id)) scheduler.remove(id);
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
    const versions = await schedulableVersions(sql);
    const changed: string[] = [];
    for (const id of [...scheduler.ids()]) if (!versions.has(id)) scheduler.remove(id);
    for (const [id, version] of versions) if (scheduler.versionOf(id) !== version) changed.push(id);
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

  for await (const page of allSchedulable(sql)) for (const row of page) scheduler.upsert(row);
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
