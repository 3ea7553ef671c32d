import { Command } from "commander";
import { action } from "../command-kit.ts";
import { allPages, data } from "../client.ts";
import { resolveMonitor } from "../monitor-ref.ts";
import { emit, paint, table } from "../output.ts";

export function alertsCommand(): Command {
  const cmd = new Command("alerts").description("Firing alerts: list and acknowledge");
  cmd
    .command("list")
    .description("Alerts firing now, one row per rule, monitor and region")
    .option("--unacknowledged", "only the ones nobody acknowledged yet")
    .action(
      action(async (run) => {
        const client = run.client();
        const acknowledged = run.opts.unacknowledged ? false : undefined;
        const alerts = await allPages((page) => client.GET("/api/v1/alert-rules/active", { params: { query: { page, limit: 100, ...(acknowledged === undefined ? {} : { acknowledged }) } } }));
        emit(run.o, { data: alerts }, () =>
          alerts.length
            ? table(
                run.o,
                ["RULE ID", "RULE", "MONITOR", "REGION", "STATE", "SINCE"],
                alerts.map((a) => [a.rule_id, a.rule_name, a.monitor_name, a.region, a.acknowledged ? "acknowledged" : paint(run.o, "red", "firing"), a.since]),
              )
            : "No alerts firing.",
        );
      }),
    );
  cmd
    .command("ack")
    .description("Acknowledge a firing alert: stops its escalations and reminders")
    .argument("<rule-id>", "the alert rule's id (RULE ID in `alerts list`)")
    .requiredOption("--monitor <monitor>", "the monitor it fires for: id, config key or exact name")
    .option("--region <region>", "only this region (default: every region where it fires)")
    .action(
      action(async (run, ruleId: string) => {
        const m = await resolveMonitor(run.client(), String(run.opts.monitor));
        const body = { monitor_id: m.id, ...(run.opts.region ? { region: String(run.opts.region) } : {}) };
        const res = data(await run.client().POST("/api/v1/alert-rules/{id}/acknowledge", { params: { path: { id: ruleId } }, body }));
        emit(run.o, res, () =>
          res.acknowledged.length ? res.acknowledged.map((a) => `Acknowledged in ${a.region}${a.already ? " (already was)" : ""}`).join("\n") : "Nothing firing to acknowledge.",
        );
      }),
    );
  return cmd;
}
