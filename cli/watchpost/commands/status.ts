import { Command } from "commander";
import { action } from "../command-kit.ts";
import { data } from "../client.ts";
import { listMonitors } from "../monitor-ref.ts";
import { emit, paint, paintStatus } from "../output.ts";

const ORDER = ["down", "timeout", "degraded", "pending", "up", "paused"] as const;

/** `watchpost status`: what the dashboard's overview shows — monitors by status, the ones not up, firing alerts. */
export function statusCommand(): Command {
  return new Command("status").description("A summary of the organisation: monitors by status, the ones not up, firing alerts").action(
    action(async (run) => {
      const client = run.client();
      const [org, monitors, alerts] = await Promise.all([
        client.GET("/api/v1/org").then(data),
        listMonitors(client),
        client.GET("/api/v1/alert-rules/active", { params: { query: { limit: 100 } } }).then(data),
      ]);
      const counts = Object.fromEntries(ORDER.map((s) => [s, 0])) as Record<(typeof ORDER)[number], number>;
      for (const m of monitors) counts[m.paused ? "paused" : m.status]++;
      const failing = monitors.filter((m) => !m.paused && m.status !== "up" && m.status !== "pending").map((m) => ({ id: m.id, name: m.name, status: m.status, since: m.status_changed_at }));
      const firing = alerts.data.map((a) => ({ rule_id: a.rule_id, rule_name: a.rule_name, monitor_id: a.monitor_id, monitor_name: a.monitor_name, region: a.region, acknowledged: a.acknowledged, since: a.since }));
      const summary = { org: { id: org.id, name: org.name }, monitors: { total: monitors.length, ...counts }, failing, alerts: { firing: alerts.pagination.total, unacknowledged: firing.filter((a) => !a.acknowledged).length, data: firing } };
      emit(run.o, summary, () => {
        const o = run.o;
        const lines = [`${paint(o, "bold", org.name)}: ${monitors.length} monitor${monitors.length === 1 ? "" : "s"}`, `  ${ORDER.map((s) => `${paintStatus(o, s)} ${counts[s]}`).join("   ")}`];
        if (failing.length) lines.push("", paint(o, "bold", "Not up"), ...failing.map((f) => `  ${paintStatus(o, f.status)}  ${f.name}  since ${f.since ?? "?"}`));
        lines.push("", `${paint(o, "bold", "Alerts firing")}: ${summary.alerts.firing} (${summary.alerts.unacknowledged} unacknowledged)`);
        lines.push(...firing.map((a) => `  ${a.acknowledged ? "acked" : paint(o, "red", "FIRING")}  ${a.rule_name} on ${a.monitor_name} (${a.region}) since ${a.since}`));
        return lines.join("\n");
      });
    }),
  );
}
