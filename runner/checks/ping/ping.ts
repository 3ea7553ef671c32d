import { resolveAndCheck } from "../../../core/net-guard/index.ts";
import { defineCheck } from "../shared/define-check.ts";
import { parsePingOutput } from "./parse-ping-output.ts";
import { PING_DEFAULTS, pingSpec } from "./ping-schema.ts";

// The parser reads English output; the rest of the environment passes through unchanged.
const PING_ENV = { ...process.env, LC_ALL: "C", LANG: "C" };
const INTERVAL_S = "0.2";

export const pingCheck = defineCheck(pingSpec, {
  async probe(config, ctx) {
    const { address, family } = await resolveAndCheck(config.host, ctx.guardOptions);
    ctx.data.ip = address;
    const count = config.count ?? PING_DEFAULTS.count;
    // Let ping stop a little before the check's deadline so that losses are reported as such.
    const deadlineS = Math.max(1, Math.floor((ctx.timeoutMs - 250) / 1000));
    const argv = [ctx.endpoints?.pingPath ?? "ping", family === 6 ? "-6" : "-4", "-n", "-q"];
    argv.push("-c", String(count), "-i", INTERVAL_S, "-w", String(deadlineS), address);

    let proc: ReturnType<typeof Bun.spawn<"ignore", "pipe", "pipe">>;
    try {
      proc = Bun.spawn(argv, { stdin: "ignore", stdout: "pipe", stderr: "pipe", env: PING_ENV });
    } catch (err) {
      return { status: "down", error: `cannot run ${argv[0]} on this runner: ${(err as Error).message}` };
    }
    const kill = () => proc.kill();
    ctx.signal.addEventListener("abort", kill, { once: true });
    try {
      const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      const summary = parsePingOutput(stdout);
      if (!summary) return { status: "down", error: `ping failed: ${(stderr || stdout).trim().slice(0, 300) || `exit code ${proc.exitCode}`}` };
      Object.assign(ctx.data, {
        packets_sent: summary.packetsSent,
        packets_received: summary.packetsReceived,
        packet_loss_pct: summary.lossPct,
        rtt_min_ms: summary.rttMinMs,
        rtt_avg_ms: summary.rttAvgMs,
        rtt_max_ms: summary.rttMaxMs,
      });
      if (summary.packetsReceived === 0) return { status: "down", error: `no replies from ${address} (100% packet loss)` };
      if (summary.lossPct > 0) return { status: "degraded", error: `${summary.lossPct}% packet loss` };
      return { status: "up" };
    } finally {
      ctx.signal.removeEventListener("abort", kill);
    }
  },
});
