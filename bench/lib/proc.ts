/**
 * What the benches read from Linux's /proc: CPU ticks of a process (its own and its reaped children's), PSS from
 * smaps_rollup (not RSS), processes by command line, the load average.
 */
import { readdirSync, readFileSync } from "node:fs";

/** USER_HZ: /proc reports CPU in 1/100 s on Linux. */
export const TICK = 100;

/** A /proc file's text, or null when the process (or file) is gone. */
export const readText = (path: string) => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
};

/** [ppid, utime+stime, cutime+cstime] in ticks, or null when the process is gone. */
export function stat(pid: number): [number, number, number] | null {
  const text = readText(`/proc/${pid}/stat`);
  if (!text) return null;
  const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // Fields after the command: state(3) ppid(4) ... utime(14) stime(15) cutime(16) cstime(17), 1-based from pid.
  return [Number(f[1]), Number(f[11]) + Number(f[12]), Number(f[13]) + Number(f[14])];
}

export const pssKb = (pid: number) => Number(/^Pss:\s+(\d+)/m.exec(readText(`/proc/${pid}/smaps_rollup`) ?? "")?.[1] ?? 0);

/** PSS split as smaps_rollup splits it (kB): anonymous memory (heaps), mapped files (code), shared memory (PostgreSQL's buffers). */
export function pssPartsKb(pid: number): { anon: number; file: number; shmem: number } {
  const text = readText(`/proc/${pid}/smaps_rollup`) ?? "";
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(text)?.[1] ?? 0);
  return { anon: field("Pss_Anon"), file: field("Pss_File"), shmem: field("Pss_Shmem") };
}

/** Processes whose command line contains every one of `parts` (e.g. ["nats-server", "4222"]). */
export function pidsByCommand(...parts: string[]): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!(pid > 0)) continue;
    const cmd = readText(`/proc/${pid}/cmdline`)?.replaceAll("\0", " ");
    if (cmd && parts.every((p) => cmd.includes(p))) out.push(pid);
  }
  return out;
}

/** The 1-minute load average (or the first `n` figures joined). */
export const loadAverage = (n = 1) => readText("/proc/loadavg")?.split(" ").slice(0, n).join(" ") ?? "?";

/** The value at quantile `p` of an ascending array. */
export const pct = (sorted: number[], p: number) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!);
