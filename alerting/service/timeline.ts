import type { Actor } from "../../domain/access/actor.ts";
import { notFound } from "../../core/errors.ts";
import type { Sql } from "../../db/client.ts";
import { alertAcknowledgements, alertChecks, alertDeliveries, alertEventTimes, findAlertHead } from "../../db/queries/alert-timeline.ts";
import { parseAlertId } from "../../schemas/alerting/alert-id.ts";

/** How far before the alert fired the failing run that led to it is looked for. */
const LOOKBACK_MS = 24 * 3_600_000;
/** Failing results listed at most (a long outage shows its first ones; the monitor page has all). */
const TIMELINE_CHECKS = 500;

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const checkId = (uuid: string) => `chk_${uuid.replaceAll("-", "")}`;

/**
 * The story of one alert (rule × monitor × region, one firing period): when it started, the failing
 * results from that region, every notification decided for it with its delivery outcome, who
 * acknowledged it, and the result that cleared it.
 */
export async function getAlertTimeline(ctx: { sql: Sql; actor: Actor }, id: string) {
  const orgId = ctx.actor.orgId;
  const key = parseAlertId(id);
  const head = key && (await findAlertHead(ctx.sql, orgId, key));
  if (!key || !head || key.incarnation > head.current_incarnation) throw notFound("Alert");
  const current = key.incarnation === head.current_incarnation;
  const [times, deliveries, acks] = await Promise.all([alertEventTimes(ctx.sql, orgId, key), alertDeliveries(ctx.sql, orgId, key), alertAcknowledgements(ctx.sql, orgId, key)]);
  const started = times.fired_at ?? (current ? head.fired_at : null) ?? deliveries[0]?.created_at ?? null;
  if (!started) throw notFound("Alert");
  const firing = current && head.firing;
  const recovered = firing ? null : times.recovered_at;
  const checks = await alertChecks(ctx.sql, orgId, key.monitor_id, key.region, started, firing ? null : (recovered ?? started), LOOKBACK_MS, TIMELINE_CHECKS);
  return {
    id,
    rule: { id: key.rule_id, name: head.rule_name },
    monitor: { id: key.monitor_id, name: head.monitor_name, type: head.monitor_type },
    region: key.region,
    incarnation: key.incarnation,
    status: firing ? (head.acknowledged ? ("acknowledged" as const) : ("firing" as const)) : ("recovered" as const),
    started_at: started.toISOString(),
    recovered_at: iso(recovered),
    checks: checks.map((c) => ({ id: checkId(c.id), checked_at: c.checked_at.toISOString(), status: c.status, duration_ms: c.duration_ms, error: c.error })),
    notifications: deliveries.map((d) => ({
      id: d.id,
      channel_id: d.channel_id,
      channel_name: d.channel_name,
      channel_type: d.channel_type,
      kind: d.kind,
      seq: d.seq,
      status: d.status,
      attempts: d.attempts,
      error: d.last_error,
      created_at: d.created_at.toISOString(),
      sent_at: iso(d.sent_at),
    })),
    acknowledgements: acks.map((a) => ({ by: a.actor_label, actor_type: a.actor_type, at: a.created_at.toISOString() })),
  };
}
