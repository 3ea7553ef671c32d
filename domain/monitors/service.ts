import type { Actor } from "../access/actor.ts";
import { hashToken, type SecretBox } from "../../core/crypto/secrets.ts";
import { type Sql, withTx } from "../../db/client.ts";
import { AppError, entitlementRequired, notFound, validationError, type ValidationIssue } from "../../core/errors.ts";
import { newId, randomToken } from "../../core/ids.ts";
import { assertAtLeast, assertIntervalSlots, assertQuota, orgLimits, type OrgLimits } from "../../billing/entitlements.ts";
import { type CheckType, quotaFamilyOf } from "../../schemas/check-types.ts";
import {
  deleteMonitors,
  findMonitor,
  idsMatching,
  insertMonitor,
  insertMonitors,
  listMonitors,
  type MonitorFilter,
  type MonitorRow,
  type MonitorWrite,
  setPaused,
  updateMonitor,
} from "../../db/queries/monitors.ts";
import { liveRunnerIds } from "../../db/queries/runners.ts";
import { assertNoUrlCredentials, splitSecrets } from "./secrets.ts";
import { validateCheckConfig } from "./validate-config.ts";
import { restartHeartbeatDeadlines } from "./heartbeat.ts";

const MONITOR_DEFAULTS = { interval_seconds: 300, timeout_ms: 30_000 } as const;

/** Self-hosted browser slots (spec): at least one minute between checks, whatever the plan's tier. */
const SELF_HOSTED_BROWSER_MIN_INTERVAL = 60;

/**
 * The quota a monitor occupies: its type's, except that a browser monitor running only on
 * self-hosted runners (no cloud region) takes a self-hosted browser slot instead of a cloud one.
 */
function quotaOf(type: CheckType, regions: string[], runnerIds: string[]): string {
  const family = quotaFamilyOf(type);
  const browser = family === "lite_browser" || family === "flow_browser";
  return browser && regions.length === 0 && runnerIds.length > 0 ? "self_hosted_browser" : family;
}

interface MonitorSettings {
  /** Cloud regions this deployment offers; the first is the default for new monitors. */
  regions: string[];
}

export interface MonitorInput {
  name: string;
  type: CheckType;
  config: Record<string, unknown>;
  interval_seconds?: number;
  timeout_ms?: number;
  regions?: string[];
  runner_ids?: string[];
  tags?: string[];
  paused?: boolean;
}

interface Ctx {
  sql: Sql;
  actor: Actor;
  box: SecretBox;
  settings: MonitorSettings;
}

const uniq = (xs: string[]) => [...new Set(xs)];

/** Checks everything about a monitor that is not a plain schema rule, then builds the row to write. */
async function prepare(ctx: Ctx, input: Required<Omit<MonitorInput, "paused">> & { paused: boolean }, previous: MonitorRow | null, limits: OrgLimits): Promise<MonitorWrite> {
  const config = validateCheckConfig(input.type, input.config);
  // Only a config sent now: a row stored before the rule can still be renamed or moved.
  if (input.config !== previous?.config) assertNoUrlCredentials(config);
  if (input.timeout_ms > input.interval_seconds * 1000) {
    throw validationError([{ path: "body.timeout_ms", message: "timeout_ms must not exceed the interval" }]);
  }
  const unknownRegions = input.regions.filter((r) => !ctx.settings.regions.includes(r));
  if (unknownRegions.length > 0) {
    throw validationError([{ path: "body.regions", message: `Unknown region(s): ${unknownRegions.join(", ")}; available: ${ctx.settings.regions.join(", ")}` }]);
  }
  let regions = uniq(input.regions);
  let runnerIds = uniq(input.runner_ids);
  if (input.type === "heartbeat") {
    // Heartbeats are inbound; they never run in a region or on a runner.
    regions = [];
    runnerIds = [];
  } else if (regions.length === 0 && runnerIds.length === 0 && (previous === null || input.regions !== previous.regions || input.runner_ids !== previous.runner_ids)) {
    // A new monitor, or one given new locations, gets the default region; one whose runner was
    // revoked keeps having none until someone picks a place (a cloud region may not reach its target).
    regions = [ctx.settings.regions[0]!];
  }
  const added = runnerIds.filter((r) => !previous?.runner_ids.includes(r));
  if (added.length > 0) {
    // Only the organisation's own runners that are not revoked; another organisation's id reads as unknown.
    // Ids the monitor already had are kept as they are (a revoked runner's checks show as unavailable).
    const known = new Set(await liveRunnerIds(ctx.sql, ctx.actor.orgId, added));
    const unknown = added.filter((r) => !known.has(r));
    if (unknown.length > 0) throw validationError([{ path: "body.runner_ids", message: `Unknown or revoked runner(s): ${unknown.join(", ")}` }]);
  }
  await assertAtLeast(ctx.sql, ctx.actor.orgId, "min_interval_seconds", input.interval_seconds, limits);
  const quota = quotaOf(input.type, regions, runnerIds);
  if (quota === "self_hosted_browser" && input.interval_seconds < SELF_HOSTED_BROWSER_MIN_INTERVAL) {
    throw entitlementRequired("min_interval_seconds", `Self-hosted browser monitors check at most once a minute`, {
      minimum: SELF_HOSTED_BROWSER_MIN_INTERVAL,
      requested: input.interval_seconds,
      slot: "self_hosted_browser",
    });
  }
  const { plan } = limits;
  if (limits.limits.regions !== undefined && regions.length > limits.limits.regions) {
    throw entitlementRequired("regions", `The ${plan.name} plan checks from at most ${limits.limits.regions} regions per monitor`, { limit: limits.limits.regions, requested: regions.length });
  }
  const { config: stored, secretsEnc } = splitSecrets(config, ctx.box, previous);
  return {
    name: input.name,
    type: input.type,
    config: stored,
    secretsEnc,
    intervalSeconds: input.interval_seconds,
    timeoutMs: input.timeout_ms,
    regions,
    runnerIds,
    tags: uniq(input.tags.map((t) => t.trim()).filter(Boolean)),
    paused: input.paused,
  };
}

/** Heartbeats are pinged by the target, so a region or runner sent with one is a mistake to say, not to drop. */
function refuseLocationsForHeartbeat(type: string, sent: { regions?: string[]; runner_ids?: string[] }): void {
  if (type !== "heartbeat") return;
  const issues = (["regions", "runner_ids"] as const)
    .filter((f) => (sent[f]?.length ?? 0) > 0)
    .map((f) => ({ path: `body.${f}`, message: `heartbeat monitors are pinged by the target and never run in a region or on a runner; leave ${f} out` }));
  if (issues.length > 0) throw validationError(issues);
}

/** The most monitors one bulk create takes (POST /monitors/bulk). */
export const BULK_CREATE_MAX = 1000;

const withDefaults = (input: MonitorInput): Required<Omit<MonitorInput, "paused">> & { paused: boolean } => ({
  ...input,
  interval_seconds: input.interval_seconds ?? MONITOR_DEFAULTS.interval_seconds,
  timeout_ms: input.timeout_ms ?? Math.min(MONITOR_DEFAULTS.timeout_ms, (input.interval_seconds ?? MONITOR_DEFAULTS.interval_seconds) * 1000),
  regions: input.regions ?? [],
  runner_ids: input.runner_ids ?? [],
  tags: input.tags ?? [],
  paused: input.paused ?? false,
});

export async function createMonitor(ctx: Ctx, input: MonitorInput): Promise<MonitorRow> {
  refuseLocationsForHeartbeat(input.type, input);
  const limits = await orgLimits(ctx.sql, ctx.actor.orgId);
  const write = await prepare(ctx, withDefaults(input), null, limits);
  const [row] = await insertChecked(ctx, [write], limits);
  return row!;
}

/**
 * Creates up to BULK_CREATE_MAX monitors, all or none: every item is validated first and every problem is
 * answered at once (paths `body.monitors[i]…`); then quotas are checked for the whole batch and the rows go
 * in one statement.
 */
export async function createMonitors(ctx: Ctx, inputs: MonitorInput[]): Promise<MonitorRow[]> {
  if (inputs.length === 0 || inputs.length > BULK_CREATE_MAX) {
    throw validationError([{ path: "body.monitors", message: `send 1 to ${BULK_CREATE_MAX} monitors (got ${inputs.length})` }]);
  }
  const limits = await orgLimits(ctx.sql, ctx.actor.orgId);
  const issues: ValidationIssue[] = [];
  const writes: MonitorWrite[] = [];
  for (const [i, input] of inputs.entries()) {
    try {
      refuseLocationsForHeartbeat(input.type, input);
      writes.push(await prepare(ctx, withDefaults(input), null, limits));
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== "VALIDATION_ERROR") throw err;
      const its = (err.details?.issues ?? []) as ValidationIssue[];
      for (const it of its) issues.push({ ...it, path: it.path.replace(/^body\./, `body.monitors[${i}].`) });
    }
  }
  if (issues.length > 0) throw validationError(issues);
  return insertChecked(ctx, writes, limits);
}

/**
 * Inserts prepared monitors after the quota checks for all of them. Where nothing bills (self-hosted) there is
 * nothing to count, so no lock either: a creation costs the same however many monitors the organisation has.
 */
async function insertChecked(ctx: Ctx, writes: MonitorWrite[], limits: OrgLimits): Promise<MonitorRow[]> {
  return withTx(ctx.sql, async (tx) => {
    if (limits.billingEnabled) {
      // Serialise counted creations per organisation so two concurrent requests cannot both take the last slot.
      await tx`select pg_advisory_xact_lock(hashtext(${ctx.actor.orgId}))`;
      const byQuota = new Map<string, number>();
      for (const w of writes) {
        const quota = quotaOf(w.type as CheckType, w.regions, w.runnerIds);
        byQuota.set(quota, (byQuota.get(quota) ?? 0) + 1);
      }
      const slots = writes.map((w) => ({ family: quotaOf(w.type as CheckType, w.regions, w.runnerIds), intervalSeconds: w.intervalSeconds }));
      await assertIntervalSlots(tx, ctx.actor.orgId, slots, { limits });
      for (const [quota, n] of byQuota) await assertQuota(tx, ctx.actor.orgId, quota, n, limits);
    }
    return insertMonitors(
      tx,
      ctx.actor.orgId,
      writes.map((w) => {
        const token = w.type === "heartbeat" ? `hb_${randomToken(24)}` : null;
        return { id: newId("mon"), ...w, heartbeatTokenHash: token ? hashToken(token) : null, heartbeatTokenEnc: token ? ctx.box.encrypt(token) : null };
      }),
    );
  });
}

/**
 * The monitor a create would store, checked by the same rules (config schema, URL credentials, plan
 * minimum interval and regions), but not stored: paused, so a run of it is answered and never recorded.
 * For POST /monitors/test; the monitor quota is not checked (nothing is added).
 */
export async function draftMonitor(ctx: Ctx, input: Omit<MonitorInput, "name" | "tags" | "paused"> & { name?: string }): Promise<MonitorRow> {
  refuseLocationsForHeartbeat(input.type, input);
  const limits = await orgLimits(ctx.sql, ctx.actor.orgId);
  const w = await prepare(ctx, withDefaults({ ...input, name: input.name ?? "Test", paused: true }), null, limits);
  const now = new Date();
  return {
    id: newId("mon"),
    org_id: ctx.actor.orgId,
    name: w.name,
    type: w.type,
    config: w.config,
    secrets_enc: w.secretsEnc,
    interval_seconds: w.intervalSeconds,
    timeout_ms: w.timeoutMs,
    regions: w.regions,
    runner_ids: w.runnerIds,
    tags: [],
    paused: true,
    suspended: false,
    status: "pending",
    status_changed_at: null,
    last_checked_at: null,
    last_duration_ms: null,
    heartbeat_token_enc: null,
    created_at: now,
    updated_at: now,
  };
}

export async function getMonitor({ sql, actor }: { sql: Sql; actor: Actor }, id: string): Promise<MonitorRow> {
  const row = await findMonitor(sql, actor.orgId, id);
  if (!row) throw notFound("Monitor");
  return row;
}

export function listOrgMonitors({ sql, actor }: { sql: Sql; actor: Actor }, filter: MonitorFilter, limit: number, offset: number) {
  return listMonitors(sql, actor.orgId, filter, limit, offset);
}

/** PATCH: fields left out keep their value; `config` replaces the whole config (secrets may be sent back as the placeholder). */
export async function patchMonitor(ctx: Ctx, id: string, patch: Partial<MonitorInput>): Promise<MonitorRow> {
  const current = await getMonitor(ctx, id);
  const type = (patch.type ?? current.type) as CheckType;
  if (patch.type && patch.type !== current.type && !patch.config) {
    throw validationError([{ path: "body.config", message: "Changing the type needs the new type's config" }]);
  }
  refuseLocationsForHeartbeat(type, patch);
  const limits = await orgLimits(ctx.sql, ctx.actor.orgId);
  const write = await prepare(
    ctx,
    {
      name: patch.name ?? current.name,
      type,
      config: patch.config ?? current.config,
      interval_seconds: patch.interval_seconds ?? current.interval_seconds,
      timeout_ms: patch.timeout_ms ?? current.timeout_ms,
      regions: patch.regions ?? (patch.runner_ids && !patch.regions ? [] : current.regions),
      runner_ids: patch.runner_ids ?? current.runner_ids,
      tags: patch.tags ?? current.tags,
      paused: patch.paused ?? current.paused,
    },
    current,
    limits,
  );
  await assertIntervalSlots(ctx.sql, ctx.actor.orgId, [{ family: quotaOf(type, write.regions, write.runnerIds), intervalSeconds: write.intervalSeconds }], { monitorId: id, limits });
  // A change of slot kind (type family, or a browser monitor moving between cloud regions and runners only) needs a free slot of the new kind.
  const before = quotaOf(current.type as CheckType, current.regions, current.runner_ids);
  const after = quotaOf(type, write.regions, write.runnerIds);
  if (after !== before) await assertQuota(ctx.sql, ctx.actor.orgId, after, 1, limits);
  const resumed = current.paused && !write.paused;
  const row = await withTx(ctx.sql, async (tx) => {
    const updated = await updateMonitor(tx, ctx.actor.orgId, id, write);
    if (updated && resumed) await restartHeartbeatDeadlines(tx, [id]);
    return updated;
  });
  if (!row) throw notFound("Monitor");
  return row;
}

export async function removeMonitor({ sql, actor }: { sql: Sql; actor: Actor }, id: string): Promise<void> {
  const deleted = await deleteMonitors(sql, actor.orgId, [id]);
  if (deleted.length === 0) throw notFound("Monitor");
}

export interface BulkTarget {
  ids?: string[];
  tag?: string;
}

/** Pause or resume one monitor (404 when it is not in the organisation). */
export async function setMonitorPaused({ sql, actor }: { sql: Sql; actor: Actor }, id: string, paused: boolean): Promise<MonitorRow> {
  await getMonitor({ sql, actor }, id);
  await pauseOrResume(sql, actor.orgId, [id], paused);
  return getMonitor({ sql, actor }, id);
}

/** Bulk pause/resume/delete by ids and/or tag; ids of other organisations are simply not matched. */
export async function bulkMonitors({ sql, actor }: { sql: Sql; actor: Actor }, action: "pause" | "resume" | "delete", target: BulkTarget) {
  if (!target.ids && !target.tag) throw validationError([{ path: "body", message: "Give ids, tag or both" }]);
  const matched = await idsMatching(sql, actor.orgId, target);
  const affected =
    action === "delete" ? await deleteMonitors(sql, actor.orgId, matched) : await pauseOrResume(sql, actor.orgId, matched, action === "pause");
  return { matched: matched.length, affected: affected.length, ids: affected };
}

/** Pauses or resumes; resumed heartbeat monitors wait afresh for their next ping, in the same transaction. */
function pauseOrResume(sql: Sql, orgId: string, ids: string[], paused: boolean): Promise<string[]> {
  return withTx(sql, async (tx) => {
    const changed = await setPaused(tx, orgId, { ids }, paused);
    if (!paused) await restartHeartbeatDeadlines(tx, changed);
    return changed;
  });
}
