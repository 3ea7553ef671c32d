import { Command, InvalidArgumentError, Option } from "commander";
import { action, intOption } from "../command-kit.ts";
import { data } from "../client.ts";
import { usageError } from "../errors.ts";
import { type Monitor, listMonitors, resolveMonitor } from "../monitor-ref.ts";
import { emit, paint, paintStatus, table, type Output } from "../output.ts";

const STATUSES = ["pending", "up", "down", "degraded", "timeout"];
const ago = (iso: string | null) => {
  if (!iso) return "never";
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  return s < 60 ? `${s}s ago` : s < 3600 ? `${Math.round(s / 60)}m ago` : s < 86_400 ? `${Math.round(s / 3600)}h ago` : `${Math.round(s / 86_400)}d ago`;
};
const shownStatus = (m: Monitor) => (m.paused ? "paused" : m.status);
/** What the monitor checks, whatever its type: a URL, a host, a DNS name or a domain (heartbeats: their ping URL). */
const target = (m: Monitor) => {
  const c = m.config as Record<string, unknown>;
  return String(c.url ?? c.host ?? c.name ?? c.domain ?? m.heartbeat_url ?? "");
};

function monitorsTable(o: Output, monitors: Monitor[]) {
  return table(
    o,
    ["ID", "NAME", "TYPE", "STATUS", "INTERVAL", "LAST CHECK", "TARGET"],
    monitors.map((m) => [m.id, m.name, m.type, paintStatus(o, shownStatus(m)), `${m.interval_seconds}s`, ago(m.last_checked_at), target(m)]),
  );
}

function monitorDetail(o: Output, m: Monitor) {
  const rows: [string, string][] = [
    ["id", m.id],
    ["name", m.name],
    ["type", m.type],
    ["status", paintStatus(o, shownStatus(m))],
    ["interval", `${m.interval_seconds}s`],
    ["timeout", `${m.timeout_ms}ms`],
    ["regions", m.regions.join(", ") || "-"],
    ["runners", m.runner_ids.join(", ") || "-"],
    ["tags", m.tags.join(", ") || "-"],
    ["last check", `${ago(m.last_checked_at)}${m.last_duration_ms === null ? "" : ` (${m.last_duration_ms} ms)`}`],
    ...(m.heartbeat_url ? [["heartbeat url", m.heartbeat_url] as [string, string]] : []),
    ["config", JSON.stringify(m.config)],
  ];
  return rows.map(([k, v]) => `${paint(o, "bold", k.padEnd(14))}${v}`).join("\n");
}

function parseJsonOption(name: string) {
  return (value: string) => {
    try {
      const v = JSON.parse(value) as unknown;
      if (!v || typeof v !== "object" || Array.isArray(v)) throw new Error();
      return v as Record<string, unknown>;
    } catch {
      throw new InvalidArgumentError("must be a JSON object");
    }
  };
}

export function monitorsCommand(): Command {
  const cmd = new Command("monitors").description("List, inspect, create, pause, resume, delete and run monitors");

  cmd
    .command("list")
    .description("List the organisation's monitors")
    .addOption(new Option("--status <status>", "only monitors in this status").choices(STATUSES))
    .option("--tag <tag>", "only monitors with this tag")
    .option("--type <type>", "only monitors of this check type")
    .option("--search <text>", "part of the name")
    .action(
      action(async (run) => {
        const { status, tag, type, search } = run.opts as Record<string, string | undefined>;
        const monitors = await listMonitors(run.client(), { status, tag, type, search });
        emit(run.o, { data: monitors }, () => (monitors.length ? monitorsTable(run.o, monitors) : "No monitors."));
      }),
    );

  cmd
    .command("get")
    .description("Show one monitor")
    .argument("<monitor>", "id, config key or exact name")
    .action(
      action(async (run, ref: string) => {
        const m = await resolveMonitor(run.client(), ref);
        emit(run.o, m, () => monitorDetail(run.o, m));
      }),
    );

  cmd
    .command("create")
    .description("Create a monitor (for many, use a config file and `watchpost apply`)")
    .requiredOption("--name <name>", "display name")
    .requiredOption("--type <type>", "check type: http, keyword, ssl, tcp, dns, ping, domain, smtp, heartbeat, browser_lite, browser_flow")
    .option("--url <url>", "shorthand for --config '{\"url\":URL}' (http, keyword, browser_lite)")
    .option("--host <host>", "shorthand for the host of ssl, tcp, ping and smtp")
    .option("--port <port>", "shorthand for the port of tcp, ssl and smtp", intOption("port", 1, 65_535))
    .option("--config <json>", "the check type's settings as a JSON object", parseJsonOption("config"))
    .option("--interval <seconds>", "seconds between checks", intOption("interval", 10, 86_400))
    .option("--timeout <ms>", "timeout in milliseconds", intOption("timeout", 100, 120_000))
    .option("--region <region...>", "cloud regions to check from")
    .option("--tag <tag...>", "tags")
    .option("--paused", "create it paused")
    .action(
      action(async (run) => {
        const o = run.opts as { name: string; type: string; url?: string; host?: string; port?: number; config?: Record<string, unknown>; interval?: number; timeout?: number; region?: string[]; tag?: string[]; paused?: boolean };
        const config = { ...(o.url ? { url: o.url } : {}), ...(o.host ? { host: o.host } : {}), ...(o.port ? { port: o.port } : {}), ...o.config };
        const body = {
          name: o.name,
          type: o.type,
          config,
          ...(o.interval ? { interval_seconds: o.interval } : {}),
          ...(o.timeout ? { timeout_ms: o.timeout } : {}),
          ...(o.region ? { regions: o.region } : {}),
          ...(o.tag ? { tags: o.tag } : {}),
          ...(o.paused ? { paused: true } : {}),
        };
        const m = data(await run.client().POST("/api/v1/monitors", { body: body as never }));
        emit(run.o, m, () => `Created ${m.name} (${m.id})`);
      }),
    );

  for (const verb of ["pause", "resume"] as const) {
    cmd
      .command(verb)
      .description(verb === "pause" ? "Stop checking a monitor" : "Check a paused monitor again")
      .argument("<monitor>", "id, config key or exact name")
      .action(
        action(async (run, ref: string) => {
          const { id } = await resolveMonitor(run.client(), ref);
          const path = verb === "pause" ? "/api/v1/monitors/{id}/pause" : "/api/v1/monitors/{id}/resume";
          const m = data(await run.client().POST(path, { params: { path: { id } } }));
          emit(run.o, m, () => `${verb === "pause" ? "Paused" : "Resumed"} ${m.name} (${m.id})`);
        }),
      );
  }

  cmd
    .command("delete")
    .description("Delete a monitor and its results")
    .argument("<monitor>", "id, config key or exact name")
    .action(
      action(async (run, ref: string) => {
        const m = await resolveMonitor(run.client(), ref);
        await run.client().DELETE("/api/v1/monitors/{id}", { params: { path: { id: m.id } } });
        emit(run.o, { id: m.id, deleted: true }, () => `Deleted ${m.name} (${m.id})`);
      }),
    );

  cmd
    .command("run")
    .description("Run a monitor's check now and print the result")
    .argument("<monitor>", "id, config key or exact name")
    .action(
      action(async (run, ref: string) => {
        const m = await resolveMonitor(run.client(), ref);
        const r = data(await run.client().POST("/api/v1/monitors/{id}/run", { params: { path: { id: m.id } } }));
        emit(run.o, r, () => `${m.name}: ${paintStatus(run.o, r.status)} in ${Math.round(r.duration_ms)} ms from ${r.location}${r.error ? ` — ${r.error}` : ""}`);
      }),
    );
  return cmd;
}
