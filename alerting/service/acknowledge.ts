import type { Actor } from "../../domain/access/actor.ts";
import type { Bus } from "../../core/bus/index.ts";
import { type Sql, withTx } from "../../db/client.ts";
import { notFound } from "../../core/errors.ts";
import { insertDeliveries } from "../../db/queries/alert-deliveries.ts";
import { type AckWrite, insertAcknowledgements } from "../../db/queries/alert-timeline.ts";
import { orgEscalationPolicies } from "../../db/queries/alert-escalation-policies.ts";
import { findAlertRule } from "../../db/queries/alert-rules.ts";
import { listActiveAlerts, lockFiringStates, saveStates } from "../../db/queries/alert-states.ts";
import { findOrg } from "../../db/queries/orgs.ts";
import { loadMonitors } from "../../db/queries/alert-monitors.ts";
import { type ChannelInfo, compileRule } from "../engine/compile.ts";
import { type AlertBusEvent, decide } from "../engine/decide.ts";
import { alertId } from "../../schemas/alerting/alert-id.ts";
import { publishAlertEvents } from "./alert-events.ts";
import { suppressingSpans } from "./quiet-spans.ts";
import { batchLocationNames } from "./location-names.ts";

interface Ctx {
  sql: Sql;
  actor: Actor;
  bus: Bus;
  publicBaseUrl: string;
  /** The acknowledgement's time; the engine's model-based test drives its own clock. */
  now?: () => number;
}

/**
 * Acknowledges the firing alert of (rule, monitor) in one region, or, without a region, in
 * every region where it fires (the monitor-wide state). Escalations and reminders stop; only
 * paging tools already told about the alert hear of it. Repeating it changes nothing.
 */
export async function acknowledgeAlert(ctx: Ctx, ruleId: string, input: { monitor_id: string; region?: string }): Promise<{ acknowledged: { region: string; already: boolean }[] }> {
  const orgId = ctx.actor.orgId;
  const ruleRow = await findAlertRule(ctx.sql, orgId, ruleId);
  if (!ruleRow) throw notFound("Alert rule");
  const monitor = (await loadMonitors(ctx.sql, [input.monitor_id])).get(input.monitor_id);
  if (!monitor || monitor.org_id !== orgId) throw notFound("Monitor");
  const [policies, channels, org] = await Promise.all([
    orgEscalationPolicies(ctx.sql, orgId),
    ctx.sql<ChannelInfo[]>`select id, type, enabled from alert_channels where org_id = ${orgId}`,
    findOrg(ctx.sql, orgId),
  ]);
  const rule = compileRule(ruleRow, new Map(policies.map((p) => [p.id, p])), new Map(channels.map((c) => [c.id, c])));
  const who = await acknowledger(ctx.sql, ctx.actor);
  const busEvents: AlertBusEvent[] = [];
  const acknowledged = await withTx(ctx.sql, async (tx) => {
    const names = batchLocationNames(tx);
    const rows = await lockFiringStates(tx, orgId, ruleId, monitor.id, input.region ?? null);
    const out: { region: string; already: boolean }[] = [];
    const writes = [];
    const deliveries = [];
    const acks: AckWrite[] = [];
    for (const row of rows) {
      if (!row.acknowledged) acks.push({ org_id: orgId, rule_id: row.rule_id, monitor_id: row.monitor_id, region: row.region, incarnation: row.incarnation, ...who });
      const d = await decide(
        { orgName: org?.name ?? "", publicBaseUrl: ctx.publicBaseUrl, quietSpans: (m, from, to) => suppressingSpans(tx, m, from, to), locationName: names },
        rule,
        monitor,
        row,
        { type: "ack", at: (ctx.now ?? Date.now)() },
      );
      out.push({ region: row.region, already: row.acknowledged });
      writes.push(d.write);
      deliveries.push(...d.deliveries);
      busEvents.push(...d.busEvents);
    }
    await saveStates(tx, writes);
    await insertDeliveries(tx, deliveries);
    await insertAcknowledgements(tx, acks);
    return out;
  });
  publishAlertEvents(ctx.bus, busEvents);
  return { acknowledged };
}

/** Who the incident timeline names: the member's email, or the API key's name. */
async function acknowledger(sql: Sql, actor: Actor): Promise<Pick<AckWrite, "actor_type" | "actor_id" | "actor_label">> {
  const id = actor.identity;
  if (id.kind === "session") return { actor_type: "user", actor_id: id.userId, actor_label: id.email };
  const [key] = await sql<{ name: string }[]>`select name from api_keys where id = ${id.keyId}`;
  return { actor_type: "api_key", actor_id: id.keyId, actor_label: `API key “${key?.name ?? id.keyId}”` };
}

export async function listActive(ctx: { sql: Sql; actor: Actor }, f: { rule_id?: string; monitor_id?: string; acknowledged?: boolean }, limit: number, offset: number) {
  const { rows, total } = await listActiveAlerts(ctx.sql, ctx.actor.orgId, f, limit, offset);
  return {
    total,
    rows: rows.map((r) => ({
      alert_id: alertId({ ...r, incarnation: r.incarnation }),
      rule_id: r.rule_id,
      rule_name: r.rule_name,
      monitor_id: r.monitor_id,
      monitor_name: r.monitor_name,
      region: r.region,
      acknowledged: r.acknowledged,
      since: r.fired_at.toISOString(),
      last_notified_at: r.last_notified_at?.toISOString() ?? null,
      consecutive: r.consecutive,
    })),
  };
}
