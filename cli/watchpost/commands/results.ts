import { Command } from "commander";
import { action, intOption } from "../command-kit.ts";
import { data, resolveConnection } from "../client.ts";
import { CliError } from "../errors.ts";
import { resolveMonitor } from "../monitor-ref.ts";
import { paint, paintStatus, type Output } from "../output.ts";
import { readSse } from "../sse.ts";

interface ResultLine {
  id: string | null;
  monitor_id: string;
  status: string;
  duration_ms: number;
  location: string;
  checked_at: string;
  error: string | null;
}

const line = (o: Output, r: ResultLine) =>
  o.json
    ? JSON.stringify(r)
    : `${paint(o, "gray", r.checked_at)}  ${paintStatus(o, r.status).padEnd(o.color ? 18 : 9)} ${String(Math.round(r.duration_ms)).padStart(6)} ms  ${r.location}${r.error ? `  ${r.error}` : ""}`;

const pick = (r: ResultLine): ResultLine => ({ id: r.id, monitor_id: r.monitor_id, status: r.status, duration_ms: r.duration_ms, location: r.location, checked_at: r.checked_at, error: r.error ?? null });

export function resultsCommand(): Command {
  const cmd = new Command("results").description("Check results");
  cmd
    .command("tail")
    .description("Print a monitor's latest results, then follow new ones live (Ctrl-C to stop); --json prints one JSON object a line")
    .argument("<monitor>", "id, config key or exact name")
    .option("-n, --lines <n>", "how many past results to print first", intOption("lines", 0, 100), 10)
    .option("--no-follow", "print the past results and exit")
    .action(
      action(async (run, ref: string) => {
        const { lines, follow } = run.opts as { lines: number; follow: boolean };
        const m = await resolveMonitor(run.client(), ref);
        if (lines > 0) {
          const past = data(await run.client().GET("/api/v1/monitors/{id}/checks", { params: { path: { id: m.id }, query: { limit: lines } } }));
          for (const r of [...past.data].reverse()) run.o.out(line(run.o, pick(r as unknown as ResultLine)));
        }
        if (!follow) return;
        const conn = resolveConnection();
        let lastId: string | null = null;
        // The stream ends when its API process shuts down: reconnect with Last-Event-ID to replay what was missed.
        for (;;) {
          const headers: Record<string, string> = { authorization: `Bearer ${conn.apiKey}`, accept: "text/event-stream" };
          if (lastId) headers["last-event-id"] = lastId;
          const res: Response = await fetch(`${conn.url}/api/v1/events`, { headers }).catch((err: Error) => {
            throw new CliError(`Cannot reach the API: ${err.message}`);
          });
          if (!res.ok || !res.body) throw new CliError(`The event stream answered ${res.status}`, `HTTP_${res.status}`);
          for await (const msg of readSse(res.body as ReadableStream<Uint8Array>)) {
            if (msg.id) lastId = msg.id;
            if (msg.event !== "check.result") continue;
            const event = JSON.parse(msg.data) as { data: ResultLine };
            if (event.data.monitor_id === m.id) run.o.out(line(run.o, pick(event.data)));
          }
          await Bun.sleep(1000);
        }
      }),
    );
  return cmd;
}
