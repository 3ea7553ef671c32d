import type { Sql } from "../db/client.ts";
import { withTx } from "../db/client.ts";
import { listSuspendable, setSuspended, type SuspendableKind } from "../db/queries/billing-suspensions.ts";
import { orgLimits } from "./entitlements.ts";
import { slotKeysFor, tierOf } from "./tiers.ts";

/** Resources that are suspended over quota; the quota key is the kind itself. */
const SUSPENDABLE: SuspendableKind[] = ["monitors", "lite_browser", "flow_browser", "self_hosted_browser", "runners", "status_pages"];


export interface ReconcileResult {
  suspended: Partial<Record<SuspendableKind, string[]>>;
  reactivated: Partial<Record<SuspendableKind, string[]>>;
}

/**
 * Makes suspension match the caps: resources already active keep their slot oldest first, then
 * suspended ones take free slots oldest first; whatever does not fit (the newest) is suspended.
 * Tiered kinds also respect their fast and real-time slot counts. `now` stamps new suspensions.
 */
export async function reconcileSuspensions(sql: Sql, orgId: string, now: Date = new Date()): Promise<ReconcileResult> {
  return withTx(sql, async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext(${orgId}))`;
    const { limits } = await orgLimits(tx, orgId);
    const result: ReconcileResult = { suspended: {}, reactivated: {} };
    for (const kind of SUSPENDABLE) {
      const rows = await listSuspendable(tx, kind, orgId);
      if (rows.length === 0) continue;
      const cap = limits[kind] ?? Number.POSITIVE_INFINITY;
      const used = new Map<string, number>([[kind, 0]]);
      const keep = new Set<string>();
      const ordered = [...rows.filter((r) => !r.suspended), ...rows.filter((r) => r.suspended)];
      for (const row of ordered) {
        const tiers = row.interval_seconds === null ? [] : slotKeysFor(kind, tierOf(row.interval_seconds)).map((k) => k.quota);
        const fits = (used.get(kind)! < cap) && tiers.every((q) => (used.get(q) ?? 0) < (limits[q] ?? 0));
        if (!fits) continue;
        keep.add(row.id);
        for (const q of [kind, ...tiers]) used.set(q, (used.get(q) ?? 0) + 1);
      }
      const suspend = rows.filter((r) => !r.suspended && !keep.has(r.id)).map((r) => r.id);
      const reactivate = rows.filter((r) => r.suspended && keep.has(r.id)).map((r) => r.id);
      await setSuspended(tx, kind, orgId, suspend, true, now);
      await setSuspended(tx, kind, orgId, reactivate, false);
      if (suspend.length) result.suspended[kind] = suspend;
      if (reactivate.length) result.reactivated[kind] = reactivate;
    }
    return result;
  });
}

/** Whether the organisation's status pages may answer on custom domains (not on Free). */
export async function customDomainsAllowed(sql: Sql, orgId: string): Promise<boolean> {
  const { limits } = await orgLimits(sql, orgId);
  return (limits.custom_domains ?? 0) > 0;
}
