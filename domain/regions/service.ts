import type { Actor } from "../access/actor.ts";
import type { Bus } from "../../core/bus/index.ts";
import type { Sql } from "../../db/client.ts";
import { regionSubject } from "../../schemas/messages/check-messages.ts";
import { orgLimits } from "../../billing/entitlements.ts";
import { regionWorkerSummary } from "../../db/queries/region-workers.ts";
import { regionScheduleStates } from "../../db/queries/region-load.ts";
import { REGION_ONLINE_TTL_SECONDS, type RegionInfo } from "./catalog.ts";

export interface RegionHealth {
  id: string;
  city: string;
  status: "online" | "offline";
  online_workers: number;
  last_seen_at: string | null;
  in_flight: number;
  /** Jobs queued for the region (waiting or in flight); null when the bus did not answer. */
  backlog: number | null;
  /** Median check duration reported by the region's workers; null before any check. */
  p50_latency_ms: number | null;
  /** Over capacity: due checks wait for the region's queue to drain, every monitor is checked less often. */
  overloaded: boolean;
  /** Since when (null while it keeps up). */
  overloaded_since: string | null;
  /** How long the oldest due check kept back has waited, in seconds (0 while it keeps up). */
  schedule_lag_seconds: number;
}

/** A scheduler leader writes every second; a row older than this has no leader behind it and says nothing. */
const SCHEDULE_STATE_FRESH_SECONDS = 30;

const BACKLOG_TIMEOUT_MS = 1000;

async function backlogOf(bus: Bus | undefined, region: string): Promise<number | null> {
  if (!bus) return null;
  const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), BACKLOG_TIMEOUT_MS));
  return Promise.race([bus.pendingJobs(regionSubject(region)).catch(() => null), timeout]);
}

/** Every configured region with its workers' health and queue depth. */
export async function regionHealth({ sql, bus, regions }: { sql: Sql; bus?: Bus; regions: RegionInfo[] }): Promise<RegionHealth[]> {
  const rows = new Map((await regionWorkerSummary(sql, REGION_ONLINE_TTL_SECONDS)).map((r) => [r.region, r]));
  const load = await regionScheduleStates(sql, SCHEDULE_STATE_FRESH_SECONDS);
  return Promise.all(
    regions.map(async (r) => {
      const w = rows.get(r.id);
      const online = (w?.online_workers ?? 0) > 0;
      const since = load.get(r.id)?.overloaded_since ?? null;
      return {
        id: r.id,
        city: r.city,
        status: online ? ("online" as const) : ("offline" as const),
        online_workers: w?.online_workers ?? 0,
        last_seen_at: w?.last_seen_at?.toISOString() ?? null,
        in_flight: w?.in_flight ?? 0,
        backlog: await backlogOf(bus, r.id),
        p50_latency_ms: online && w?.p50_ms !== null && w?.p50_ms !== undefined ? Math.round(w.p50_ms) : null,
        overloaded: since !== null,
        overloaded_since: since?.toISOString() ?? null,
        schedule_lag_seconds: Math.round((load.get(r.id)?.lag_seconds ?? 0) * 10) / 10,
      };
    }),
  );
}

export interface LocationView {
  id: string;
  city: string;
  type: "region";
  /** Whether the organisation's plan lets its monitors check from here. */
  usable: boolean;
  /** Regions one monitor may use at once on the plan. */
  max_regions_per_monitor: number;
}

/** The cities the organisation's plan can check from. */
export async function planLocations({ sql, actor, regions }: { sql: Sql; actor: Actor; regions: RegionInfo[] }): Promise<LocationView[]> {
  const { limits } = await orgLimits(sql, actor.orgId);
  const perMonitor = Math.min(limits.regions ?? regions.length, regions.length);
  return regions.map((r) => ({ id: r.id, city: r.city, type: "region" as const, usable: perMonitor >= 1, max_regions_per_monitor: perMonitor }));
}
