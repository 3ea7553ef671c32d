import { type Sql, withTx } from "../db/client.ts";
import { type Logger, silentLogger } from "../core/log.ts";
import { enqueueMail } from "../domain/mail/enqueue.ts";
import { type LineRow, ownerEmails, type SubscriptionRow, updateLine } from "../db/queries/billing.ts";
import { type BillingJobRow, claimDueJobs, finishJob } from "../db/queries/billing-jobs.ts";
import { expiredSuspensions, orgsWithSuspensions, removeSuspended } from "../db/queries/billing-suspensions.ts";
import type { BillingProvider } from "./provider/types.ts";
import { reconcileSuspensions } from "./suspension.ts";
import { findOrgPlan } from "../db/queries/plans.ts";
import { settleOrgPlan } from "./sync.ts";

export interface BillingJobDeps {
  provider?: BillingProvider | null;
  log?: Logger;
}

type Handler = (sql: Sql, job: BillingJobRow, now: Date, deps: BillingJobDeps) => Promise<void>;

const fmt = (d: Date) => d.toISOString().slice(0, 16).replace("T", " ") + " UTC";

/** One handler per job kind; `satisfies` makes a missing kind a type error. */
const HANDLERS = {
  async grace_reminder(sql, job) {
    const lines = await sql<LineRow[]>`select * from billing_lines where subscription_id = ${job.ref_id} and status = 'grace_period'`;
    const ends = lines[0]?.grace_ends_at;
    if (!ends) return;
    // Queued with the job's transaction; the alerting role sends it from the mail outbox.
    for (const to of await ownerEmails(sql, job.org_id)) {
      await enqueueMail(sql, {
        kind: "billing_reminder",
        orgId: job.org_id,
        to,
        subject: "Watchpost: payment failed — update your payment method",
        text: `The last payment for your Watchpost subscription failed. Everything keeps working until ${fmt(ends)}; after that the organisation moves to the Free plan and its add-ons are cancelled.\nUpdate the payment method in Billing to keep your plan.`,
      });
    }
  },
  async grace_expiry(sql, job, now, deps) {
    const sub = await withTx(sql, async (tx) => {
      const expired = await tx<LineRow[]>`
        update billing_lines set status = 'past_due', ended_at = ${now}, updated_at = now()
        where subscription_id = ${job.ref_id} and status = 'grace_period' and grace_ends_at <= ${now} returning *`;
      if (expired.length === 0) return null;
      await settleOrgPlan(tx, job.org_id);
      const [sub] = await tx<SubscriptionRow[]>`select * from billing_subscriptions where id = ${job.ref_id}`;
      return sub ?? null;
    });
    await reconcileSuspensions(sql, job.org_id, now);
    if (sub && deps.provider) await deps.provider.cancel(sub.provider_subscription_id, "immediately");
  },
  async period_end(sql, job, now, deps) {
    const done = await withTx(sql, async (tx) => {
      const [line] = await tx<LineRow[]>`select * from billing_lines where id = ${job.ref_id} for update`;
      if (!line || line.status !== "pending_cancellation" || !line.cancel_at || line.cancel_at > now) return false;
      await updateLine(tx, line.id, { status: "cancelled", ended_at: line.cancel_at });
      await settleOrgPlan(tx, job.org_id);
      return true;
    });
    if (!done) return;
    await reconcileSuspensions(sql, job.org_id, now);
    if (deps.provider) await pushBillable(sql, deps.provider, job.ref_id);
  },
  async suspension_cleanup(sql, job, now) {
    await sweepSuspensions(sql, job.org_id, now);
  },
} satisfies Record<BillingJobRow["kind"], Handler>;

/** After a line ends, the provider bills only the lines still running (add-ons below a lowered plan's minimum end too). */
async function pushBillable(sql: Sql, provider: BillingProvider, lineId: string): Promise<void> {
  const [sub] = await sql<SubscriptionRow[]>`
    select s.* from billing_subscriptions s join billing_lines l on l.subscription_id = s.id where l.id = ${lineId} and s.provider_status <> 'canceled'`;
  if (!sub) return;
  const live = await sql<LineRow[]>`select * from billing_lines where subscription_id = ${sub.id} and status in ('active', 'grace_period')`;
  if (live.length === 0) await provider.cancel(sub.provider_subscription_id, "immediately");
  else await provider.updateItems(sub.provider_subscription_id, live.map((l) => ({ productId: l.product_id, quantity: l.quantity })), "do_not_bill");
}

/**
 * Reactivates what fits again, and deletes (runners: revokes) what stayed suspended for the grace
 * period of the organisation's plan (spec: suspended resources are auto-deleted once the grace
 * period is waited out; Free 3 days, Starter 5, Pro and Business 7).
 */
async function sweepSuspensions(sql: Sql, orgId: string, now: Date): Promise<void> {
  await reconcileSuspensions(sql, orgId, now);
  const graceDays = (await findOrgPlan(sql, orgId))?.grace_days ?? 7;
  const before = new Date(now.getTime() - graceDays * 86_400_000);
  for (const r of await expiredSuspensions(sql, orgId, before)) await removeSuspended(sql, r.kind, orgId, r.id);
}

/**
 * Runs every billing job due at `now` (grace reminders and expiry, period ends) and sweeps
 * suspended resources. Rows stay in the database until done, so a restart loses none.
 */
export async function runBillingJobs(sql: Sql, now: Date = new Date(), deps: BillingJobDeps = {}): Promise<{ ran: number; failed: number }> {
  const log = deps.log ?? silentLogger;
  let ran = 0;
  let failed = 0;
  for (;;) {
    const batch = await withTx(sql, async (tx) => {
      const jobs = await claimDueJobs(tx, now, 50);
      const results: { job: BillingJobRow; error: string | null }[] = [];
      for (const job of jobs) {
        try {
          await withTx(tx, (savepoint) => HANDLERS[job.kind](savepoint, job, now, deps));
          results.push({ job, error: null });
        } catch (err) {
          log.warn({ op: "billing.job", kind: job.kind, ref: job.ref_id, err }, "billing job failed; retrying later");
          results.push({ job, error: err instanceof Error ? err.message : String(err) });
        }
        await finishJob(tx, job.id, results.at(-1)!.error);
      }
      return results;
    });
    ran += batch.filter((r) => !r.error).length;
    failed += batch.filter((r) => r.error).length;
    if (batch.length < 50) break;
  }
  for (const orgId of await orgsWithSuspensions(sql)) {
    await sweepSuspensions(sql, orgId, now).catch((err) => log.warn({ op: "billing.sweep", orgId, err }, "suspension sweep failed"));
  }
  return { ran, failed };
}

/**
 * Runs the billing jobs every `intervalMs` until stopped: the scheduler leader's loop (scheduler/billing-jobs.ts).
 * `now` is the payment provider's clock (the simulator's, which /sim/advance moves); real time when unset.
 */
export function startBillingJobs(deps: BillingJobDeps & { sql: Sql; intervalMs?: number; now?: () => Date | Promise<Date> }): { stop(): Promise<void> } {
  const log = deps.log ?? silentLogger;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    running = Promise.resolve(deps.now?.() ?? new Date())
      .then((now) => runBillingJobs(deps.sql, now, deps))
      .catch((err) => log.error({ op: "billing.jobs", err }, "billing job run failed"))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, deps.intervalMs ?? 30_000);
      });
  };
  let timer: ReturnType<typeof setTimeout> = setTimeout(tick, 0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
