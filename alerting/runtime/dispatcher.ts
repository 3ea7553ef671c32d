import type { SecretBox } from "../../core/crypto/secrets.ts";
import { isDatabaseUnavailable, type Sql, withTx } from "../../db/client.ts";
import { newId } from "../../core/ids.ts";
import type { Logger } from "../../core/log.ts";
import { nextAttempt, retry } from "../../core/retry.ts";
import { findAlertChannel } from "../../db/queries/alert-channels.ts";
import { claimDeliveries, type DeliveryRow, insertDeliveries, insertHistory, markDelivery } from "../../db/queries/alert-deliveries.ts";
import { insertNotifications } from "../../db/queries/alert-notifications.ts";
import { type AlertStateRow, claimDueStates, claimWithdrawnStates, postponeStates, saveStates, type StateKey } from "../../db/queries/alert-states.ts";
import { HEARTBEAT_LOCATION, NOWHERE_LOCATION } from "../../domain/monitors/locations.ts";
import type { MachineInput } from "../engine/state-machine.ts";
import { type AlertEvent, type Channel, type ChannelContext, ChannelError, channels, isChannelType } from "../channels/index.ts";
import { decryptChannelConfig, templateSettingsOf } from "../service/alert-channels.ts";
import { bindTemplate } from "../service/message-template.ts";
import { loadMonitors, type MonitorInfo } from "../../db/queries/alert-monitors.ts";
import { type AlertBusEvent, type DecideContext, decide } from "../engine/decide.ts";
import { batchSpans, type QuietSpansOf } from "../service/quiet-spans.ts";
import { batchLocationNames } from "../service/location-names.ts";
import type { DispatcherMetrics } from "./metrics.ts";
import type { RuleCache } from "./rule-cache.ts";

export interface DispatcherDeps {
  sql: Sql;
  box: SecretBox;
  log: Logger;
  rules: RuleCache;
  channelCtx: ChannelContext;
  publicBaseUrl: string;
  /** Suppressing maintenance windows (domain/maintenance by default); tests may give their own. */
  quietSpans?: QuietSpansOf;
  /** How long a claimed delivery is ours; past it another dispatcher may send it (at-least-once window). */
  leaseMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  metrics?: DispatcherMetrics;
  /** Test hook: runs after a delivery is claimed, before it is sent. */
  beforeSend?: (d: DeliveryRow) => void;
}

/** Escalations and reminders that came due: claimed with SKIP LOCKED so each is applied by one process. */
export async function runDueTimers(deps: DispatcherDeps, now = Date.now(), limit = 200): Promise<{ applied: number; busEvents: AlertBusEvent[] }> {
  return withTx(deps.sql, async (tx) => applyToStates(deps, tx, await claimDueStates(tx, new Date(now), limit), { type: "tick", at: now }));
}

/**
 * Alerts at a location their monitor no longer checks from (a region taken off it, its runner revoked, `none` once it
 * has somewhere to run again): nothing can recover them there, so they close (docs/alerting.md).
 */
export async function closeWithdrawnStates(deps: DispatcherDeps, now = Date.now(), limit = 200): Promise<{ applied: number; busEvents: AlertBusEvent[] }> {
  return withTx(deps.sql, async (tx) => {
    const rows = await claimWithdrawnStates(tx, { heartbeat: HEARTBEAT_LOCATION, nowhere: NOWHERE_LOCATION }, limit);
    return applyToStates(deps, tx, rows, { type: "withdraw", at: now });
  });
}

async function applyToStates(deps: DispatcherDeps, tx: Sql, due: AlertStateRow[], input: MachineInput): Promise<{ applied: number; busEvents: AlertBusEvent[] }> {
  if (due.length === 0) return { applied: 0, busEvents: [] };
  const monitors = await loadMonitors(tx, [...new Set(due.map((d) => d.monitor_id))]);
  const writes = [];
  const deliveries = [];
  const notifications = [];
  const busEvents: AlertBusEvent[] = [];
  const skipped: StateKey[] = [];
  const names = batchLocationNames(tx);
  const spansOf = deps.quietSpans ? (m: MonitorInfo, from: number, to: number) => deps.quietSpans!(tx, m, from, to) : batchSpans(tx);
  for (const row of due) {
    const org = await deps.rules.get(row.org_id);
    const rule = org.byId.get(row.rule_id);
    const monitor = monitors.get(row.monitor_id);
    if (!rule || !monitor) {
      // A rule newer than this process's cache: reload it and look again shortly, without spinning.
      deps.rules.invalidate(row.org_id);
      skipped.push({ rule_id: row.rule_id, monitor_id: row.monitor_id, region: row.region });
      continue;
    }
    const ctx: DecideContext = { orgName: org.orgName, publicBaseUrl: deps.publicBaseUrl, quietSpans: spansOf, locationName: names };
    const d = await decide(ctx, rule, monitor, row, input);
    writes.push(d.write);
    deliveries.push(...d.deliveries);
    notifications.push(...d.notifications);
    busEvents.push(...d.busEvents);
  }
  await saveStates(tx, writes);
  await insertDeliveries(tx, deliveries);
  await insertNotifications(tx, notifications);
  await postponeStates(tx, skipped, new Date(input.at + 5_000));
  return { applied: due.length - skipped.length, busEvents };
}

async function sendOne(deps: DispatcherDeps, d: DeliveryRow): Promise<void> {
  const event = d.event as unknown as AlertEvent;
  const row = await findAlertChannel(deps.sql, d.org_id, d.channel_id);
  const started = performance.now();
  let outcome: { ok: true; status?: number } | { ok: false; error: ChannelError };
  if (!row || !isChannelType(row.type)) outcome = { ok: false, error: new ChannelError("the channel no longer exists", { permanent: true }) };
  else if (!row.enabled) outcome = { ok: false, error: new ChannelError("the channel is disabled", { permanent: true }) };
  else {
    deps.beforeSend?.(d);
    try {
      const template = bindTemplate(event, templateSettingsOf(row), deps.channelCtx.publicBaseUrl);
      const receipt = await (channels[row.type] as Channel<unknown>).send(event, decryptChannelConfig(deps.box, row), deps.channelCtx, template);
      outcome = { ok: true, status: receipt.status };
    } catch (err) {
      outcome = { ok: false, error: err instanceof ChannelError ? err : new ChannelError(`unexpected error: ${(err as Error)?.message ?? String(err)}`, { permanent: false }) };
    }
  }
  const durationMs = Math.round(performance.now() - started);
  const next = outcome.ok ? null : nextAttempt(d.attempts, outcome.error, { attempts: deps.maxAttempts, baseMs: deps.retryBaseMs, maxMs: deps.retryMaxMs });
  const gaveUp = next?.giveUp === true;
  const retryInMs = next && !next.giveUp ? next.delayMs : 0;
  const log = { op: "alerting.dispatch", delivery: d.idempotency_key, orgId: d.org_id, ruleId: d.rule_id, monitorId: d.monitor_id, region: d.region, channel: d.channel_id, kind: d.kind, attempt: d.attempts };
  // Once sent, the outcome must be recorded: were it lost to a database restart, the delivery would go
  // out again when its lease ran out. So a database outage is waited out, while the lease is ours.
  await untilRecorded(deps, d, () => recordOutcome(deps, d, row, outcome, gaveUp, retryInMs, durationMs));
  deps.metrics?.deliveries.inc({ kind: d.kind, outcome: outcome.ok ? "sent" : gaveUp ? "failed" : "retrying" });
  deps.metrics?.sendSeconds.observe({ outcome: outcome.ok ? "sent" : "error" }, durationMs / 1000);
  const occurred = Date.parse(event.occurredAt);
  if (outcome.ok && Number.isFinite(occurred)) deps.metrics?.latency.observe({ kind: d.kind }, Math.max(0, Date.now() - occurred) / 1000);
  if (outcome.ok) deps.log.info({ ...log, ms: durationMs }, "sent");
  else deps.log.warn({ ...log, permanent: outcome.error.permanent, gaveUp, err: outcome.error.message }, "delivery failed");
}

/** How long before its lease ends a dispatcher stops retrying the record of a delivery it sent. */
const LEASE_MARGIN_MS = 1000;

async function untilRecorded(deps: DispatcherDeps, d: DeliveryRow, record: () => Promise<void>): Promise<void> {
  const deadline = (d.lease_until?.getTime() ?? Date.now() + deps.leaseMs) - LEASE_MARGIN_MS;
  await retry(record, {
    attempts: Number.POSITIVE_INFINITY,
    baseMs: 250,
    maxMs: 2000,
    jitter: false,
    isPermanent: (err) => !isDatabaseUnavailable(err) || Date.now() + 250 > deadline,
    sleep: (ms) => Bun.sleep(Math.min(ms, Math.max(0, deadline - Date.now()))),
    onFailure: (err, attempt) => {
      if (attempt === 1 && isDatabaseUnavailable(err)) deps.log.warn({ op: "alerting.dispatch", delivery: d.idempotency_key, err }, "database unavailable; retrying the record of a delivery");
    },
  });
}

async function recordOutcome(
  deps: DispatcherDeps,
  d: DeliveryRow,
  row: Awaited<ReturnType<typeof findAlertChannel>>,
  outcome: { ok: true; status?: number } | { ok: false; error: ChannelError },
  gaveUp: boolean,
  retryInMs: number,
  durationMs: number,
): Promise<void> {
  await withTx(deps.sql, async (tx) => {
    if (outcome.ok) await markDelivery(tx, d.id, { status: "sent" });
    else if (gaveUp) await markDelivery(tx, d.id, { status: "failed", error: outcome.error.message });
    else {
      await markDelivery(tx, d.id, { status: "pending", error: outcome.error.message, nextAttemptAt: new Date(Date.now() + retryInMs) });
    }
    await insertHistory(tx, {
      id: newId("ahi"),
      org_id: d.org_id,
      delivery_id: d.id,
      rule_id: d.rule_id,
      monitor_id: d.monitor_id,
      region: d.region,
      channel_id: d.channel_id,
      channel_type: row?.type ?? null,
      kind: d.kind,
      attempt: d.attempts,
      status: outcome.ok ? "sent" : gaveUp ? "failed" : "retrying",
      http_status: outcome.ok ? (outcome.status ?? null) : (outcome.error.status ?? null),
      error: outcome.ok ? null : outcome.error.message,
      duration_ms: durationMs,
    });
    if (gaveUp && !outcome.ok) {
      await insertNotifications(tx, [
        {
          id: newId("ntf"),
          org_id: d.org_id,
          type: "delivery.failed",
          title: `Could not deliver ${d.kind} to ${row?.name ?? d.channel_id}`,
          body: outcome.error.message,
          // The incarnation (from the key `<rule>:<monitor>:<region>:<incarnation>:…`) links the feed to the alert's timeline.
          data: { delivery_id: d.id, channel_id: d.channel_id, rule_id: d.rule_id, monitor_id: d.monitor_id, region: d.region, kind: d.kind, incarnation: Number(d.idempotency_key.split(":")[3]) },
        },
      ]);
    }
  });
}

/** Claims due deliveries and sends them; the deliveries of one (alert, channel) never overtake each other (see claimDeliveries). */
export async function runDueDeliveries(deps: DispatcherDeps, limit = 100): Promise<number> {
  const claimed = await claimDeliveries(deps.sql, new Date(), deps.leaseMs, limit);
  await Promise.all(
    claimed.map((d) =>
      sendOne(deps, d).catch((err) => deps.log.error({ op: "alerting.dispatch", delivery: d.idempotency_key, err }, "dispatch failed; retried after the lease")),
    ),
  );
  return claimed.length;
}
