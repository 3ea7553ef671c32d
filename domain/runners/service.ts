import type { Actor } from "../access/actor.ts";
import { assertQuota } from "../../billing/entitlements.ts";
import type { Bus } from "../../core/bus/index.ts";
import { hashToken } from "../../core/crypto/secrets.ts";
import { type Sql, withTx } from "../../db/client.ts";
import { notFound } from "../../core/errors.ts";
import { newId, randomToken } from "../../core/ids.ts";
import { runnerSubject } from "../../schemas/messages/check-messages.ts";
import type { Logger } from "../../core/log.ts";
import * as q from "../../db/queries/runners.ts";
import { type RunnerScheduleState, runnerScheduleState } from "../../db/queries/queue-state.ts";
import { OFFLINE_AFTER_BEATS, RUNNER_TOKEN_PREFIX } from "../../schemas/runner-protocol.ts";
import { drainRunnerQueue, STALE_REASONS } from "./queue.ts";

type RunnerStatus = "online" | "offline" | "revoked";

export interface RunnerView {
  id: string;
  name: string;
  location_label: string | null;
  status: RunnerStatus;
  suspended: boolean;
  last_seen_at: string | null;
  last_check_at: string | null;
  /** When it ended its session on a graceful stop; null once it connects again. */
  stopped_at: string | null;
  created_at: string;
  revoked_at: string | null;
}

/** A row of the runners list: the runner with what it last reported. */
export interface RunnerListItem extends RunnerView {
  /** RUNNER_NAME and RUNNER_REGION as the runner reports them. */
  reported_name: string | null;
  region: string | null;
  version: string | null;
  /** Checks it held at its last heartbeat (0 once stopped). */
  in_flight: number;
}

export interface RunnerStatusView extends RunnerListItem {
  capabilities: { browsers: string[]; concurrency: number | null };
  heartbeat_interval_ms: number | null;
  /** Offline once no heartbeat arrived for this long (3 × the runner's interval). */
  offline_after_ms: number;
  encrypted: boolean | null;
  overloaded: boolean;
  overloaded_since: string | null;
  schedule_lag_seconds: number;
}

/** A scheduler state row older than this says nothing (no leader writing it). */
const SCHEDULE_STATE_FRESH_SECONDS = 30;

const DEFAULT_HEARTBEAT_MS = 30_000;

export function runnerStatus(row: q.RunnerRow, now = Date.now()): RunnerStatus {
  if (row.revoked_at) return "revoked";
  // It said it was stopping: offline at once, not three missed heartbeats later.
  if (row.stopped_at) return "offline";
  const window = OFFLINE_AFTER_BEATS * (row.heartbeat_interval_ms ?? DEFAULT_HEARTBEAT_MS);
  return row.last_seen_at && now - row.last_seen_at.getTime() <= window ? "online" : "offline";
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toRunnerView(row: q.RunnerRow): RunnerView {
  return {
    id: row.id,
    name: row.name,
    location_label: row.location_label,
    status: runnerStatus(row),
    suspended: row.suspended,
    last_seen_at: iso(row.last_seen_at),
    last_check_at: iso(row.last_check_at),
    stopped_at: iso(row.stopped_at),
    created_at: row.created_at.toISOString(),
    revoked_at: iso(row.revoked_at),
  };
}

function toRunnerListItem(row: q.RunnerRow): RunnerListItem {
  return { ...toRunnerView(row), reported_name: row.reported_name, region: row.region, version: row.version, in_flight: row.in_flight };
}

function toRunnerStatusView(row: q.RunnerRow, load: RunnerScheduleState | null): RunnerStatusView {
  return {
    ...toRunnerListItem(row),
    capabilities: { browsers: row.browsers, concurrency: row.concurrency },
    heartbeat_interval_ms: row.heartbeat_interval_ms,
    offline_after_ms: OFFLINE_AFTER_BEATS * (row.heartbeat_interval_ms ?? DEFAULT_HEARTBEAT_MS),
    encrypted: row.encrypted,
    overloaded: load?.overloaded_since != null,
    overloaded_since: iso(load?.overloaded_since ?? null),
    schedule_lag_seconds: load?.overloaded_since ? Math.max(0, load.lag_seconds) : 0,
  };
}

interface Ctx {
  sql: Sql;
  actor: Actor;
}

/** Creates a runner within the plan's `runners` quota; the token is returned here once and stored as SHA-256 only. */
export async function createRunner({ sql, actor }: Ctx, input: { name: string; location_label?: string | null }): Promise<RunnerView & { token: string }> {
  const token = `${RUNNER_TOKEN_PREFIX}${randomToken(32)}`;
  const row = await withTx(sql, async (tx) => {
    // Serialise creations per organisation so two concurrent requests cannot both pass the quota.
    await tx`select pg_advisory_xact_lock(hashtext(${`runners:${actor.orgId}`}))`;
    await assertQuota(tx, actor.orgId, "runners", 1);
    return q.insertRunner(tx, actor.orgId, { id: newId("run"), name: input.name, locationLabel: input.location_label ?? null, tokenHash: hashToken(token) });
  });
  return { ...toRunnerView(row), token };
}

export async function getRunner({ sql, actor }: Ctx, id: string): Promise<q.RunnerRow> {
  const row = await q.findRunner(sql, actor.orgId, id);
  if (!row) throw notFound("Runner");
  return row;
}

/** The runner with what it reports and whether the scheduler holds checks back for it (its queue's overload). */
export async function getRunnerStatus(c: Ctx, id: string): Promise<RunnerStatusView> {
  const row = await getRunner(c, id);
  return toRunnerStatusView(row, await runnerScheduleState(c.sql, row.id, SCHEDULE_STATE_FRESH_SECONDS));
}

export async function listRunners({ sql, actor }: Ctx, limit: number, offset: number): Promise<{ rows: RunnerListItem[]; total: number }> {
  const { rows, total } = await q.listRunners(sql, actor.orgId, limit, offset);
  return { rows: rows.map(toRunnerListItem), total };
}

export async function patchRunner({ sql, actor }: Ctx, id: string, patch: { name?: string; location_label?: string | null }): Promise<RunnerView> {
  const row = await q.updateRunner(sql, actor.orgId, id, { name: patch.name, locationLabel: patch.location_label });
  if (!row) throw notFound("Runner");
  return toRunnerView(row);
}

/**
 * Revokes: the token stops working at once (auth reads the row on every request) and sessions are
 * dropped. The runner's consumer is reset, so the jobs it had claimed go back to its queue at once
 * (its old claims can no longer be acked); no other runner may take them, so every job on the queue
 * is recorded as an `unavailable` result (monitoring_unavailable) and removed.
 */
export async function revokeRunner({ sql, actor }: Ctx, bus: Bus, log: Logger, id: string): Promise<void> {
  const row = await q.revokeRunner(sql, actor.orgId, id);
  if (!row) throw notFound("Runner");
  // Monitors stop naming a runner that will never run again; one left with nowhere to run is
  // recorded unavailable at each due time by the scheduler (monitoring_unavailable).
  const stranded = await q.removeRunnerFromMonitors(sql, actor.orgId, id);
  await bus.resetJobConsumer(runnerSubject(id));
  const recorded = await drainRunnerQueue(bus, id, STALE_REASONS.revoked);
  log.info({ op: "runners.revoke", orgId: actor.orgId, runnerId: id, recorded, stranded: stranded.length }, "runner revoked");
}
