import { type Sql, withTx } from "../../db/client.ts";
import type { CheckResultMessage } from "../../schemas/messages/check-messages.ts";
import { insertDeliveries } from "../../db/queries/alert-deliveries.ts";
import { insertNotifications } from "../../db/queries/alert-notifications.ts";
import { keyOf, lockStates, peekStates, previousFingerprint, saveStates, type StateKey, type StateWrite } from "../../db/queries/alert-states.ts";
import { evaluateCondition } from "../engine/conditions.ts";
import { initialState } from "../engine/state-machine.ts";
import { loadMonitors, type MonitorInfo } from "../../db/queries/alert-monitors.ts";
import type { CompiledRule } from "../engine/compile.ts";
import { type AlertBusEvent, type DecideContext, decide, readState } from "../engine/decide.ts";
import { batchSpans, type QuietSpansOf } from "../service/quiet-spans.ts";
import { batchLocationNames } from "../service/location-names.ts";
import { checksFrom } from "../../domain/monitors/locations.ts";
import type { OrgAlerting, RuleCache } from "./rule-cache.ts";

/**
 * Results are ordered by their checked_at; one stamped further ahead than this (a runner
 * clock running fast) counts as this far ahead, so a state is never pushed into the future
 * and a corrected clock is ignored for at most this long.
 */
export const MAX_CLOCK_AHEAD_MS = 60_000;

export interface EvaluateDeps {
  sql: Sql;
  rules: RuleCache;
  publicBaseUrl: string;
  /** Suppressing maintenance windows (domain/maintenance by default); tests may give their own. */
  quietSpans?: QuietSpansOf;
}

interface Candidate {
  key: StateKey & { org_id: string };
  rule: CompiledRule;
  monitor: MonitorInfo;
  result: CheckResultMessage;
}

export interface EvaluateOutcome {
  evaluated: number;
  deliveries: number;
  busEvents: AlertBusEvent[];
}

/**
 * One batch of results: match rules (scopes read the monitor's tags now), then apply every
 * result that can change something to its locked state rows, and write the new states, the
 * outbox deliveries and in-app notifications in one transaction. The caller acks after commit.
 */
export async function evaluateResults(deps: EvaluateDeps, batch: CheckResultMessage[]): Promise<EvaluateOutcome> {
  // An organisation without an enabled rule has nothing to evaluate: its results cost no query (most results of
  // most organisations, and every result of the many that set no rule).
  const orgs = new Map<string, OrgAlerting>();
  for (const r of batch) if (typeof r.org_id === "string" && !orgs.has(r.org_id)) orgs.set(r.org_id, await deps.rules.get(r.org_id));
  const results = batch.filter((r) => orgs.get(r.org_id)?.anyEnabled === true);
  if (results.length === 0) return { evaluated: 0, deliveries: 0, busEvents: [] };
  const monitorIds = [...new Set(results.map((r) => r.monitor_id))];
  // Both only need the monitor ids: one round trip's time instead of two.
  const [monitors, peeked] = await Promise.all([loadMonitors(deps.sql, monitorIds), peekStates(deps.sql, monitorIds)]);
  const candidates: Candidate[] = [];
  const orgNames = new Map<string, string>();
  const batchNow = Date.now();
  const ordered = [...results].sort((a, b) => a.checked_at - b.checked_at);
  for (const result of ordered) {
    const monitor = monitors.get(result.monitor_id);
    if (!monitor || monitor.org_id !== result.org_id) continue;
    // From a location taken off the monitor (a check in flight then, a revoked runner's queue): it says nothing now.
    if (!checksFrom(monitor, result.location)) continue;
    const org = orgs.get(result.org_id)!;
    orgNames.set(result.org_id, org.orgName);
    for (const rule of org.matching(monitor)) {
      candidates.push({ key: { org_id: result.org_id, rule_id: rule.id, monitor_id: monitor.id, region: result.location }, rule, monitor, result });
    }
  }
  if (candidates.length === 0) return { evaluated: 0, deliveries: 0, busEvents: [] };

  // Most results pass and have no state: those change nothing and never touch a row.
  // Once a key needs its row, every later result of the batch for it does too (a fail then a pass).
  const touched = new Set<string>();
  const need = (key: string) => {
    touched.add(key);
    return true;
  };
  const needed = candidates.filter((c) => {
    const key = keyOf(c.key);
    if (touched.has(key) || peeked.has(key)) return need(key);
    const view = { status: c.result.status, duration_ms: c.result.duration_ms, data: (c.result.data ?? {}) as Record<string, unknown> };
    const memory = {};
    const { verdict, memory: after } = evaluateCondition(c.rule.condition, view, memory);
    if (verdict === "holds" || after !== memory) return need(key);
    return false;
  });
  if (needed.length === 0) return { evaluated: candidates.length, deliveries: 0, busEvents: [] };

  return withTx(deps.sql, async (tx) => {
    const rows = await lockStates(tx, needed.map((c) => c.key), { machine: initialState() }, new Set(peeked.keys()));
    const writes = new Map<string, StateWrite>();
    const deliveries = [];
    const notifications = [];
    const busEvents: AlertBusEvent[] = [];
    const names = batchLocationNames(tx);
    const spansOf = deps.quietSpans ? (m: MonitorInfo, from: number, to: number) => deps.quietSpans!(tx, m, from, to) : batchSpans(tx);
    for (const c of needed) {
      const row = rows.get(keyOf(c.key));
      if (!row) continue; // rule or monitor deleted meanwhile
      const ctx: DecideContext = {
        orgName: orgNames.get(c.key.org_id) ?? "",
        publicBaseUrl: deps.publicBaseUrl,
        quietSpans: spansOf,
        locationName: names,
      };
      let memory = readState(row).machine.memory;
      const view = { status: c.result.status, duration_ms: c.result.duration_ms, data: (c.result.data ?? {}) as Record<string, unknown> };
      if (c.rule.condition.type === "certificate_changed" && memory.fingerprint === undefined && typeof view.data.fingerprint_sha256 === "string") {
        // The state has not seen a certificate yet (a rule newer than the monitor): the previous check is the stored one.
        memory = { ...memory, fingerprint: await previousFingerprint(tx, c.key.org_id, c.monitor.id, c.key.region, new Date(c.result.scheduled_at)) };
      }
      const evaluated = evaluateCondition(c.rule.condition, view, memory);
      const d = await decide(
        ctx,
        c.rule,
        c.monitor,
        row,
        { type: "result", at: Math.min(c.result.checked_at, batchNow + MAX_CLOCK_AHEAD_MS), verdict: evaluated.verdict, memory: evaluated.memory },
        { status: c.result.status, duration_ms: c.result.duration_ms, ...(c.result.error ? { error: c.result.error } : {}), data: view.data },
      );
      writes.set(keyOf(c.key), d.write);
      deliveries.push(...d.deliveries);
      notifications.push(...d.notifications);
      busEvents.push(...d.busEvents);
    }
    await saveStates(tx, [...writes.values()]);
    await insertDeliveries(tx, deliveries);
    await insertNotifications(tx, notifications);
    return { evaluated: candidates.length, deliveries: deliveries.length, busEvents };
  });
}
