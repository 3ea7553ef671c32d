import type { Sql } from "../db/client.ts";
import type { Logger } from "../core/log.ts";
import { BEATS_STALL_GRACE_SECONDS, REGION_ONLINE_TTL_SECONDS } from "../domain/regions/catalog.ts";
import { onlineRegionEngines, runnerEngines } from "../db/queries/browser-placement.ts";
import { onlineRegionConcurrency, onlineRunners } from "../db/queries/scheduler.ts";
import type { JobQueue } from "./job-queues.ts";
import { BlindTime } from "../core/process/blind-time.ts";
import { heardExpiry, type Unheard, unheardStretches } from "../domain/runners/runner-job-expiry.ts";

const NONE: ReadonlyMap<string, number> = new Map();
const ANY = { has: () => true };

/** Whether a location can run a job now; answered from memory on the hot path. */
export interface Placement {
  regionOnline(region: string): boolean;
  runnerOnline(runnerId: string): boolean;
  /** Browser engines of the region's online workers; none when absent. */
  regionEngines?(region: string): { has(engine: string): boolean };
  /** Browser engines the runner reported (BROWSERS); none when absent. */
  runnerEngines?(runnerId: string): { has(engine: string): boolean };
  /**
   * When a runner's job due at `due` with `lifeMs` to run expires: its life counts only time in which a runner could
   * have been heard (`heardExpiry`). Absent: `due + lifeMs`.
   */
  runnerJobExpiry?(due: number, lifeMs: number): number;
}

export interface PlacementOptions {
  refreshMs?: number;
  regionTtlSeconds?: number;
  /** Floor of the runner liveness window; each runner is also given three of its own heartbeat intervals. */
  runnerTtlSeconds?: number;
  /** Replaces the default runner answer (the `runners` table when it exists, else offline). */
  isRunnerOnline?: (runnerId: string) => boolean;
  /**
   * For this long after it starts, a region not seen online yet counts as online, offering every browser engine:
   * its due checks are published rather than recorded unavailable, since its workers may be starting with the
   * scheduler (the all-in-one) or beating again after a restart longer than the liveness window. A job no worker
   * takes expires unclaimed and the leader's sweep records it unavailable then. Default: the region liveness
   * window (15 s).
   */
  startGraceMs?: number;
  /** The schedule's clock, for the grace; default Date.now. */
  now?: () => number;
  /**
   * What this process could not see (refreshes that failed; in the all-in-one, before it started): a runner
   * silent only then is not offline, since its heartbeats could not have been read (`runnerSilenceSeconds`), and
   * a runner job's life does not run then (`runnerJobExpiry`). Default: one of the placement's own.
   */
  blind?: BlindTime;
}

/** Placement plus what the scheduled loop needs to keep it fresh. */
export type LivePlacement = Required<Placement> & {
  /**
   * Checks the queue's consumers run at once: a region's online workers' CONCURRENCY summed; for a browser
   * engine's queue the workers offering it (each runs one or more browsers; their pool sizes are not reported);
   * a runner's CONCURRENCY as it reported it (1 when not reported). 0 when none is online.
   */
  queueConcurrency(queue: JobQueue): number;
  refresh(): Promise<void>;
  stop(): void;
};

/** Region and runner liveness from the database, refreshed in the background. */
export async function startPlacement(sql: Sql, log: Logger, opts: PlacementOptions = {}): Promise<LivePlacement> {
  const refreshMs = opts.refreshMs ?? 2000;
  let regions = new Map<string, number>();
  let runners = new Map<string, number>();
  let regionBrowsers = new Map<string, Map<string, number>>();
  let runnerBrowsers = new Map<string, Set<string>>();
  /** The blind time as of the last good refresh: no runner could reach the API then, nor take a job. */
  let unheard: Unheard[] = [];
  let warned = false;
  const now = opts.now ?? Date.now;
  const blind = opts.blind ?? new BlindTime();
  const ttl = opts.regionTtlSeconds ?? REGION_ONLINE_TTL_SECONDS;
  const graceEnds = now() + (opts.startGraceMs ?? ttl * 1000);
  /** Regions seen online since the start: one that went away is offline at once, grace or not. */
  const seen = new Set<string>();
  /** A region not seen online since the start, inside the start-up grace. */
  const unseenInGrace = (region: string) => !seen.has(region) && now() < graceEnds;

  const refresh = async () => {
    try {
      regions = await onlineRegionConcurrency(sql, ttl, BEATS_STALL_GRACE_SECONDS);
      for (const region of regions.keys()) seen.add(region);
      regionBrowsers = await onlineRegionEngines(sql, ttl, BEATS_STALL_GRACE_SECONDS);
      await blind.refresh();
      runners = (await onlineRunners(sql, opts.runnerTtlSeconds ?? 15, blind.span())) ?? new Map();
      runnerBrowsers = await runnerEngines(sql).catch(() => new Map());
      blind.succeeded();
      unheard = unheardStretches(blind.span(), now());
    } catch (err) {
      blind.failed();
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
    regionOnline: (region) => regions.has(region) || unseenInGrace(region),
    runnerOnline: opts.isRunnerOnline ?? ((id) => runners.has(id)),
    regionEngines: (region) => regionBrowsers.get(region) ?? (unseenInGrace(region) ? ANY : NONE),
    runnerEngines: (id) => runnerBrowsers.get(id) ?? NONE,
    runnerJobExpiry: (due, lifeMs) => heardExpiry(due, lifeMs, unheard),
    queueConcurrency: (q) =>
      q.kind === "region" ? (regions.get(q.location) ?? 0) : q.kind === "browser" ? (regionBrowsers.get(q.location)?.get(q.engine!) ?? 0) : (runners.get(q.location) ?? 1),
    refresh,
    stop: () => clearInterval(timer),
  };
}
