import type { Sql } from "../db/client.ts";
import type { Logger } from "../core/log.ts";
import { REGION_ONLINE_TTL_SECONDS } from "../domain/regions/catalog.ts";
import { onlineRegionEngines, runnerEngines } from "../db/queries/browser-placement.ts";
import { onlineRegionConcurrency, onlineRunners } from "../db/queries/scheduler.ts";

const NONE: ReadonlySet<string> = new Set();

/** Whether a location can run a job now; answered from memory on the hot path. */
export interface Placement {
  regionOnline(region: string): boolean;
  runnerOnline(runnerId: string): boolean;
  /** Browser engines of the region's online workers; none when absent. */
  regionEngines?(region: string): ReadonlySet<string>;
  /** Browser engines the runner reported (BROWSERS); none when absent. */
  runnerEngines?(runnerId: string): ReadonlySet<string>;
}

export interface PlacementOptions {
  refreshMs?: number;
  regionTtlSeconds?: number;
  /** Floor of the runner liveness window; each runner is also given three of its own heartbeat intervals. */
  runnerTtlSeconds?: number;
  /** Replaces the default runner answer (the `runners` table when it exists, else offline). */
  isRunnerOnline?: (runnerId: string) => boolean;
}

/** Placement plus what the scheduled loop needs to keep it fresh. */
export type LivePlacement = Required<Placement> & {
  /** Checks the region's online workers run at once (0 when none is online). */
  regionConcurrency(region: string): number;
  refresh(): Promise<void>;
  stop(): void;
};

/** Region and runner liveness from the database, refreshed in the background. */
export async function startPlacement(sql: Sql, log: Logger, opts: PlacementOptions = {}): Promise<LivePlacement> {
  const refreshMs = opts.refreshMs ?? 2000;
  let regions = new Map<string, number>();
  let runners = new Set<string>();
  let regionBrowsers = new Map<string, Set<string>>();
  let runnerBrowsers = new Map<string, Set<string>>();
  let warned = false;

  const refresh = async () => {
    try {
      regions = await onlineRegionConcurrency(sql, opts.regionTtlSeconds ?? REGION_ONLINE_TTL_SECONDS);
      regionBrowsers = await onlineRegionEngines(sql, opts.regionTtlSeconds ?? REGION_ONLINE_TTL_SECONDS);
      if (!opts.isRunnerOnline) runners = (await onlineRunners(sql, opts.runnerTtlSeconds ?? 15)) ?? new Set();
      runnerBrowsers = await runnerEngines(sql).catch(() => new Map());
    } catch (err) {
      // Keep the last answer: a short database hiccup should not mark every region offline.
      if (!warned) log.warn({ op: "scheduler.placement", err }, "liveness refresh failed; keeping the last answer");
      warned = true;
      return;
    }
    warned = false;
  };
  await refresh();
  const timer = setInterval(() => void refresh(), refreshMs);
  return {
    regionOnline: (region) => regions.has(region),
    runnerOnline: opts.isRunnerOnline ?? ((id) => runners.has(id)),
    regionEngines: (region) => regionBrowsers.get(region) ?? NONE,
    runnerEngines: (id) => runnerBrowsers.get(id) ?? NONE,
    regionConcurrency: (region) => regions.get(region) ?? 0,
    refresh,
    stop: () => clearInterval(timer),
  };
}
