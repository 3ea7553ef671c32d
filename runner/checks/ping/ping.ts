import { resolveAndCheck } from "../../../core/net-guard/index.ts";
import { defineCheck } from "../shared/define-check.ts";
import { parsePingOutput } from "./parse-ping-output.ts";
import { PING_DEFAULTS, pingSpec } from "./ping-schema.ts";

// The parser reads English output; the rest of the environment passes through unchanged.
const PING_ENV = { ...process.env, LC_ALL: "C", LANG: "C" };
const INTERVAL_MS = 200;
/** The shortest interval iputils allows a user other than root. */
const MIN_INTERVAL_MS = 2;
/** ping ends this much before the check's deadline (at most a quarter of it), so losses are reported as such. */
const STOP_EARLY_MS = 250;

/**
 * `-i` and `-W` (seconds, fractional: iputils ≥ 20210202) so that ping ends within the budget:
 * sending takes at most half of it, the rest is the wait for the last reply. `-w` takes whole
 * seconds only, which made a timeoutMs under 1.25 s a timeout even when the host answered.
 */
function pingTiming(count: number, timeoutMs: number): { interval: string; wait: string } {
  const budget = Math.max(timeoutMs - STOP_EARLY_MS, timeoutMs * 0.75);
  const interval = count > 1 ? Math.max(MIN_INTERVAL_MS, Math.min(INTERVAL_MS, Math.floor(budget / 2 / (count - 1)))) : INTERVAL_MS;
  // -W 0 would mean "wait for ever".
  const wait = Math.max(1, Math.floor(budget - (count - 1) * interval));
  return { interval: (interval / 1000).toFixed(3), wait: (wait / 1000).toFixed(3) };
}

export const pingCheck = defineCheck(pingSpec, {
  async probe(config, ctx) {
    const { address, family } = await resolveAndCheck(config.host, ctx.guardOptions);
    ctx.data.ip = address;
    const count = config.count ?? PING_DEFAULTS.count;
    const { interval, wait } = pingTiming(count, ctx.timeoutMs);
    const argv = [ctx.endpoints?.pingPath ?? "ping", family === 6 ? "-6" : "-4", "-n", "-q"];
    argv.push("-c", String(count), "-i", interval, "-W", wait, address);

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
      const errors = summary.errors > 0 ? `; destination unreachable: ${summary.errors} errors` : "";
      if (summary.packetsReceived === 0) return { status: "down", error: `no replies from ${address} (100% packet loss${errors})` };
      if (summary.lossPct > 0) return { status: "degraded", error: `${summary.lossPct}% packet loss${errors}` };
      return { status: "up" };
    } finally {
      ctx.signal.removeEventListener("abort", kill);
    }
  },
});
