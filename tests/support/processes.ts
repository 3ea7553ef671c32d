import type { Subprocess } from "bun";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..");

export interface RoleProcess {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  /** JSON log lines seen so far. */
  lines: Record<string, unknown>[];
  /** The first log line whose message is `msg`, or which starts with it followed by a space or a colon. */
  waitForLog(msg: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** Spawns `bun <entry>` from the repository root with the given environment, collecting its JSON logs. */
export function spawnRole(entry: string, env: Record<string, string>, args: string[] = []): RoleProcess {
  const proc = Bun.spawn(["bun", join(root, entry), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root", LOG_LEVEL: "info", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const lines: Record<string, unknown>[] = [];
  const read = async (stream: ReadableStream<Uint8Array>) => {
    let buf = "";
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      buf += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        try {
          lines.push(JSON.parse(line));
        } catch {
          if (line.trim()) lines.push({ msg: line });
        }
      }
    }
  };
  void read(proc.stdout);
  void read(proc.stderr);
  return {
    proc,
    lines,
    async waitForLog(msg, timeoutMs = 10_000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const hit = lines.find((l) => typeof l.msg === "string" && (l.msg === msg || l.msg.startsWith(`${msg} `) || l.msg.startsWith(`${msg}:`)));
        if (hit) return hit;
        if (proc.exitCode !== null) throw new Error(`${entry} exited (${proc.exitCode}) before logging "${msg}": ${JSON.stringify(lines.slice(-5))}`);
        if (Date.now() > end) throw new Error(`${entry} did not log "${msg}" within ${timeoutMs} ms: ${JSON.stringify(lines.slice(-5))}`);
        await Bun.sleep(20);
      }
    },
    async stop(graceMs = 5000) {
      if (proc.exitCode !== null || proc.signalCode) return;
      proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), graceMs);
      await proc.exited;
      clearTimeout(timer);
    },
  };
}

/** Whether a process with this pid exists (signal 0: nothing is sent). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits up to `ms` for a process to end; whether it did. */
export async function gone(pid: number, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (alive(pid) && Date.now() < deadline) await Bun.sleep(100);
  return !alive(pid);
}
