/**
 * Random traces for the whole alert engine (results from several regions, maintenance
 * windows, escalation delays, reminders, acknowledgements, rule edits, rule and monitor
 * deletion, restarts) and a driver that runs one through the real engine on PostgreSQL
 * with a controlled clock: evaluateResults for results, runDueTimers at each due time
 * (a dispatcher that is never late), acknowledgeAlert, the rule and monitor services.
 */
import fc from "fast-check";
import type { Identity } from "../../domain/access/identity.ts";
import type { Bus } from "../../core/bus/index.ts";
import type { Sql } from "../../db/client.ts";
import { newId } from "../../core/ids.ts";
import { silentLogger } from "../../core/log.ts";
import { removeMonitor } from "../../domain/monitors/service.ts";
import { insertWindow } from "../../db/queries/maintenance-windows.ts";
import { createChannelContext } from "../channels/index.ts";
import { patchRule, removeRule } from "../service/alert-rules.ts";
import type { DispatcherDeps } from "../runtime/dispatcher.ts";
import { runDueTimers } from "../runtime/dispatcher.ts";
import { evaluateResults } from "../runtime/evaluate.ts";
import { RuleCache } from "../runtime/rule-cache.ts";
import { acknowledgeAlert } from "../service/acknowledge.ts";
import { MIN, type Sent } from "./engine-reference.ts";
import { alertingOrg, testBox } from "./fixtures.ts";
import type { Trace, TraceOp, TraceRule } from "./trace.ts";

const REGIONS = ["eu-west", "us-east", "ap-south"];
const CHANNELS = ["webhook", "webhook", "slack", "pagerduty"];
const STEP = 15_000;

// Delays and intervals from small sets of minutes, results on a 15 s grid: timers meet each other and results often.
const arbRule = (monitors: number): fc.Arbitrary<TraceRule> =>
  fc.record({
    scope: fc.oneof(fc.constant("all" as const), fc.integer({ min: 0, max: monitors - 1 })),
    enabled: fc.oneof({ weight: 9, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    consecutiveFailures: fc.integer({ min: 1, max: 3 }),
    onRecovery: fc.boolean(),
    recurring: fc.boolean(),
    interval: fc.option(fc.constantFrom(3, 5, 10, 15), { nil: null }),
    bindings: fc.uniqueArray(fc.record({ channel: fc.integer({ min: 0, max: CHANNELS.length - 1 }), delay: fc.constantFrom(0, 0, 5, 10, 15) }), {
      minLength: 1,
      maxLength: 4,
      selector: (b) => b.channel,
    }),
  });

const gap = fc.integer({ min: 1, max: 40 }).map((n) => n * STEP);

/** Which operations a trace may hold; the test and the bench use them all. */
export interface TraceMix {
  windows: boolean;
}

const arbOp = (rules: number, monitors: number, mix: TraceMix): fc.Arbitrary<TraceOp> =>
  fc.oneof(
    {
      weight: 30,
      arbitrary: fc.record({
        t: fc.constant("result" as const),
        monitor: fc.integer({ min: 0, max: monitors - 1 }),
        region: fc.integer({ min: 0, max: REGIONS.length - 1 }),
        verdict: fc.constantFrom("holds" as const, "holds" as const, "passes" as const, "unknown" as const),
        gap,
      }),
    },
    {
      weight: 5,
      arbitrary: fc.record({
        t: fc.constant("ack" as const),
        rule: fc.integer({ min: 0, max: rules - 1 }),
        monitor: fc.integer({ min: 0, max: monitors - 1 }),
        region: fc.option(fc.integer({ min: 0, max: REGIONS.length - 1 }), { nil: null }),
        gap,
      }),
    },
    { weight: mix.windows ? 5 : 0, arbitrary: fc.record({ t: fc.constant("window" as const), minutes: fc.integer({ min: 1, max: 40 }), gap }) },
    { weight: 3, arbitrary: fc.record({ t: fc.constant("toggle" as const), rule: fc.integer({ min: 0, max: rules - 1 }), field: fc.constantFrom("enabled" as const, "on_recovery" as const), gap }) },
    { weight: 2, arbitrary: fc.record({ t: fc.constant("confirm" as const), rule: fc.integer({ min: 0, max: rules - 1 }), consecutive: fc.integer({ min: 1, max: 3 }), gap }) },
    { weight: 2, arbitrary: fc.record({ t: fc.constant("restart" as const), gap }) },
    { weight: 8, arbitrary: fc.record({ t: fc.constant("wait" as const), gap: fc.integer({ min: 1, max: 30 }).map((n) => n * MIN) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant("delete_rule" as const), rule: fc.integer({ min: 0, max: rules - 1 }), gap })},
    { weight: 1, arbitrary: fc.record({ t: fc.constant("delete_monitor" as const), monitor: fc.integer({ min: 0, max: monitors - 1 }), gap })},
  );

export const traceArbitrary = (mix: TraceMix = { windows: true }): fc.Arbitrary<Trace> =>
  fc
  .record({ rules: fc.integer({ min: 1, max: 2 }), monitors: fc.integer({ min: 1, max: 2 }) })
  .chain(({ rules, monitors }) =>
    fc.record({
      start: fc.constant(Date.UTC(2026, 0, 1)),
      regions: fc.constant(REGIONS.length),
      monitors: fc.constant(Array.from({ length: monitors }, (_, i) => `m${i}`)),
      channels: fc.constant(CHANNELS),
      pagingChannel: fc.constant(CHANNELS.indexOf("pagerduty")),
      rules: fc.array(arbRule(monitors), { minLength: rules, maxLength: rules }),
      ops: fc.array(arbOp(rules, monitors, mix), { minLength: 8, maxLength: 30, size: "max" }),
      tail: fc.constant(40 * MIN),
    }),
  );

export const arbTrace = traceArbitrary();

/** What the driver shares between traces: one organisation in one database. */
export interface EngineBench {
  sql: Sql;
  bus: Bus;
  org: Awaited<ReturnType<typeof alertingOrg>>;
  actor: { orgId: string; userId: string; identity: Identity; ip: string };
}

export async function engineBench(sql: Sql, bus: Bus): Promise<EngineBench> {
  const org = await alertingOrg(sql);
  const [user] = await sql<{ user_id: string }[]>`select user_id from memberships where org_id = ${org.orgId} limit 1`;
  const identity = { kind: "user", role: "owner", permissions: ["org:admin"] } as unknown as Identity;
  return { sql, bus, org, actor: { orgId: org.orgId, userId: user?.user_id ?? "", identity, ip: "127.0.0.1" } };
}

/** Runs one trace through the real engine and returns every notification it decided, mapped back to the trace's indices. */
export async function engineRun(b: EngineBench, trace: Trace): Promise<Sent[]> {
  const { sql, org } = b;
  const monitorIds = await Promise.all(trace.monitors.map((_, i) => org.monitor([], `model ${i}`, { regions: REGIONS.slice(0, trace.regions) })));
  const channelIds = await Promise.all(trace.channels.map((type) => (type === "webhook" ? org.webhook("https://hooks.example/x") : org.channel(type, type === "slack" ? { webhook_url: "https://hooks.slack.example/x" } : { routing_key: "r".repeat(32) }))));
  const ruleIds: string[] = [];
  for (const r of trace.rules) {
    ruleIds.push(
      await org.rule({
        enabled: r.enabled,
        scope: r.scope === "all" ? { type: "all_monitors" } : { type: "monitor", monitor_id: monitorIds[r.scope]! },
        condition: { type: "status_change", to: ["down"] },
        confirmation: { consecutive_failures: r.consecutiveFailures, confirmation_regions: null },
        notifications: { on_recovery: r.onRecovery, recurring: r.recurring, recurring_interval_minutes: r.interval },
        channels: r.bindings.map((x) => ({ channel_id: channelIds[x.channel]!, delay_minutes: x.delay })),
      }),
    );
  }
  let rules = new RuleCache(sql, silentLogger, 3_600_000);
  const deps = () => ({ sql, rules, publicBaseUrl: "https://watchpost.test" });
  const dispatcher = (): DispatcherDeps => ({
    ...deps(),
    box: testBox,
    log: silentLogger,
    channelCtx: createChannelContext({ publicBaseUrl: "https://watchpost.test", allowPrivateAddresses: true, timeoutMs: 1000 }),
    leaseMs: 60_000,
    maxAttempts: 3,
    retryBaseMs: 10,
    retryMaxMs: 10,
  });
  const ctx = { sql, actor: b.actor };
  const windowIds: string[] = [];
  const nextDue = async () => {
    const [row] = await sql<{ due: Date | null }[]>`select min(next_due_at) as due from alert_states where monitor_id = any(${monitorIds})`;
    return row?.due ? row.due.getTime() : null;
  };
  /** A dispatcher that is never late: a tick at each due time before `now` (or at it). */
  const clock = async (now: number, inclusive: boolean) => {
    for (let guard = 0; guard < 10_000; guard++) {
      const due = await nextDue();
      if (due === null || due > now || (!inclusive && due === now)) return;
      await runDueTimers(dispatcher(), due);
    }
    throw new Error("the engine's timers did not settle");
  };

  let now = trace.start;
  try {
    for (const op of trace.ops) {
      now += op.gap;
      await clock(now, false);
      switch (op.t) {
        case "result":
          await evaluateResults(deps(), [
            {
              id: `${monitorIds[op.monitor]}.${REGIONS[op.region]}.${now}`,
              org_id: org.orgId,
              monitor_id: monitorIds[op.monitor]!,
              location: REGIONS[op.region]!,
              location_type: "region",
              scheduled_at: now,
              checked_at: now,
              status: op.verdict === "holds" ? "down" : op.verdict === "passes" ? "up" : "unavailable",
              duration_ms: 100,
              error: null,
              data: {},
            },
          ]);
          break;
        case "ack":
          await acknowledgeAlert({ ...ctx, bus: b.bus, publicBaseUrl: "https://watchpost.test", now: () => now }, ruleIds[op.rule]!, {
            monitor_id: monitorIds[op.monitor]!,
            ...(op.region === null ? {} : { region: REGIONS[op.region]! }),
          }).catch((err) => {
            if (err?.code !== "NOT_FOUND") throw err;
          });
          break;
        case "window": {
          const id = newId("mw");
          windowIds.push(id);
          await insertWindow(sql, org.orgId, id, {
            name: "model",
            description: "",
            startsAt: new Date(now),
            endsAt: new Date(now + op.minutes * MIN),
            rrule: null,
            cron: null,
            durationMinutes: null,
            timezone: "UTC",
            monitorIds,
            tags: [],
            pauseMonitors: false,
            suppressAlerts: true,
          });
          break;
        }
        case "toggle": {
          const [row] = await sql<{ enabled: boolean; notifications: { on_recovery: boolean } }[]>`select enabled, notifications from alert_rules where id = ${ruleIds[op.rule]!}`;
          if (!row) break;
          await patchRule(ctx, ruleIds[op.rule]!, op.field === "enabled" ? { enabled: !row.enabled } : { notifications: { on_recovery: !row.notifications.on_recovery } }).catch((err) => {
            // Enabling a rule whose monitor was deleted is refused until it gets another scope.
            if (err?.code !== "VALIDATION_ERROR") throw err;
          });
          rules.invalidate(org.orgId);
          break;
        }
        case "confirm":
          await patchRule(ctx, ruleIds[op.rule]!, { confirmation: { consecutive_failures: op.consecutive } }).catch((err) => {
            if (err?.code !== "NOT_FOUND") throw err;
          });
          rules.invalidate(org.orgId);
          break;
        case "delete_rule":
          await removeRule(ctx, ruleIds[op.rule]!).catch((err) => {
            if (err?.code !== "NOT_FOUND") throw err;
          });
          rules.invalidate(org.orgId);
          break;
        case "delete_monitor":
          await removeMonitor(ctx, monitorIds[op.monitor]!).catch((err) => {
            if (err?.code !== "NOT_FOUND") throw err;
          });
          break;
        case "restart":
          // A new process: nothing survives but the database.
          rules = new RuleCache(sql, silentLogger, 3_600_000);
          break;
        case "wait":
          break;
      }
    }
    await clock(now + trace.tail, true);
    const rows = await sql<{ rule_id: string; monitor_id: string; region: string; channel_id: string; kind: string; seq: number; at: string }[]>`
      select rule_id, monitor_id, region, channel_id, kind, seq, event->>'occurredAt' as at from alert_deliveries where monitor_id = any(${monitorIds})`;
    return rows.map((d) => ({
      rule: ruleIds.indexOf(d.rule_id),
      monitor: monitorIds.indexOf(d.monitor_id),
      region: REGIONS.indexOf(d.region),
      channel: channelIds.indexOf(d.channel_id),
      kind: d.kind,
      seq: d.seq,
      at: Date.parse(d.at),
    }));
  } finally {
    // Each trace cleans up after itself, so the next one's dispatcher sees only its own timers.
    await sql`delete from alert_states where monitor_id = any(${monitorIds})`;
    await sql`delete from alert_rules where id = any(${ruleIds})`;
    await sql`delete from monitors where id = any(${monitorIds})`;
    await sql`delete from alert_channels where id = any(${channelIds})`;
    if (windowIds.length) await sql`delete from maintenance_windows where id = any(${windowIds})`;
  }
}

export const canon = (xs: Sent[]) => xs.map((x) => `${new Date(x.at).toISOString()} rule${x.rule} m${x.monitor} r${x.region} c${x.channel} ${x.kind}#${x.seq}`).sort();
