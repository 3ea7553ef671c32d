import type { SecretBox } from "../../core/crypto/secrets.ts";
import type { Logger } from "../../core/log.ts";
import { type Sql, withTx } from "../../db/client.ts";
import { claimDelivery, lockDueReports, markScheduled } from "../../db/queries/reports.ts";
import { deliverableEmails, enqueueReportMail } from "../../domain/reports/recipients.ts";
import { nextSendAt, periodOf } from "../../domain/reports/schedule.ts";

export interface ReportSweepDeps {
  sql: Sql;
  box: SecretBox;
  /** PUBLIC_BASE_URL, for the unsubscribe and dashboard links. */
  baseUrl: string;
  log: Logger;
  /** Injectable for tests; default real time. */
  now?: () => Date;
}

/**
 * One pass: each due report, one transaction each, locked with SKIP LOCKED; its period is the one its
 * scheduled time (not the sweep's) reports on, and the (report, period) row is the idempotency key,
 * so however many alerting processes sweep, a period's mail is queued once. A report missed for several
 * periods (every alerting process down) sends the latest one and moves on. Returns how many it handled.
 */
export async function sendDueReports(d: ReportSweepDeps): Promise<number> {
  let handled = 0;
  // A report that fails (its data cannot be read) is left due for the next pass and skipped in this one, so it never holds up the others.
  const failed: string[] = [];
  for (;;) {
    const now = d.now?.() ?? new Date();
    let current: string | null = null;
    try {
      const done = await withTx(d.sql, async (tx) => {
        const [report] = await lockDueReports(tx, now, 1, failed);
        if (!report) return false;
        current = report.id;
        const period = periodOf(report, report.next_send_at);
        const to = await deliverableEmails(tx, report);
        const claimed = await claimDelivery(tx, report.id, period.from, period.to, to.length);
        if (claimed) await enqueueReportMail(tx, { box: d.box, baseUrl: d.baseUrl }, report, period, to);
        const later = now.getTime() > report.next_send_at.getTime() ? now : report.next_send_at;
        await markScheduled(tx, report.id, nextSendAt(report, later), claimed ? now : null);
        d.log.info({ op: "reports.send", reportId: report.id, orgId: report.org_id, periodStart: period.from, recipients: to.length, duplicate: !claimed }, claimed ? "report queued" : "report period already sent");
        return true;
      });
      if (!done) return handled;
      handled++;
    } catch (err) {
      if (current === null) throw err;
      failed.push(current);
      d.log.error({ op: "reports.send", reportId: current, err }, "report not queued; retried next pass");
    }
  }
}

/** The alerting role's report sender: a pass every `pollMs` (a minute by default; sends are due at minute boundaries); passes never overlap. */
export function startReportSweep(d: ReportSweepDeps, pollMs = 60_000): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = running.then(() => sendDueReports(d)).catch((err) => d.log.error({ op: "reports.send", err }, "report pass failed"));
  };
  tick();
  const timer = setInterval(tick, pollMs);
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
