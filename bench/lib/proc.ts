/**
 * What the benches read from Linux's /proc: CPU ticks of a process (its own and its reaped children's), PSS from
 * smaps_rollup (not RSS), processes by command line, the load average.
 */
import { readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";

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

/** PSS (kB) from a smaps_rollup text. */
const pssOf = (text: string) => Number(/^Pss:\s+(\d+)/m.exec(text)?.[1] ?? 0);

/** PSS split as smaps_rollup splits it (kB): anonymous memory (heaps), mapped files (code), shared memory (PostgreSQL's buffers). */
function pssPartsOf(text: string): { anon: number; file: number; shmem: number } {
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(text)?.[1] ?? 0);
  return { anon: field("Pss_Anon"), file: field("Pss_File"), shmem: field("Pss_Shmem") };
}

export const pssKb = (pid: number) => pssOf(readText(`/proc/${pid}/smaps_rollup`) ?? "");
export const pssPartsKb = (pid: number) => pssPartsOf(readText(`/proc/${pid}/smaps_rollup`) ?? "");

/**
 * smaps_rollup read off the event loop: the kernel walks the process's page tables for it (up to 50 ms for the
 * all-in-one, 130 ms for PostgreSQL's processes together, measured), which would stall a bench whose loop also serves
 * the loopback target.
 */
const smapsRollupAsync = (pid: number) => readFile(`/proc/${pid}/smaps_rollup`, "utf8").catch(() => "");
export const pssKbAsync = async (pid: number) => pssOf(await smapsRollupAsync(pid));
export const pssPartsKbAsync = async (pid: number) => pssPartsOf(await smapsRollupAsync(pid));

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

export interface ThreadCpu {
  /** utime+stime in ticks. */
  ticks: number;
  /** Voluntary plus involuntary context switches (each a wake-up or a preemption of the thread). */
  switches: number;
  /** Threads of that name. */
  count: number;
}

/**
 * CPU and context switches of every thread of `pid`, summed by thread name (`bun` is the main JavaScript thread,
 * `Worker` a worker thread, `HeapHelper`/`JITWorker`/… JavaScriptCore's collector and compiler helpers).
 */
export function threadsCpu(pid: number): Map<string, ThreadCpu> {
  const out = new Map<string, ThreadCpu>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    const text = readText(`/proc/${pid}/task/${tid}/stat`);
    const status = readText(`/proc/${pid}/task/${tid}/status`);
    if (!text || !status) continue;
    const name = text.slice(text.indexOf("(") + 1, text.lastIndexOf(")"));
    const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
    const switches = Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0) + Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    const sum = out.get(name) ?? { ticks: 0, switches: 0, count: 0 };
    sum.ticks += Number(f[11]) + Number(f[12]);
    sum.switches += switches;
    sum.count++;
    out.set(name, sum);
  }
  return out;
}

/**
 * What each thread name spent between two `threadsCpu` readings, per unit of work: "bun 180 µs 2.1 sw, Worker 120 µs 1.8 sw, …"
 * (CPU-µs and context switches per unit; names that spent nothing are left out). Threads that ended in between are not counted.
 */
export function threadsPerUnit(before: Map<string, ThreadCpu>, after: Map<string, ThreadCpu>, units: number): string {
  const rows: [string, number, number][] = [];
  for (const [name, a] of after) {
    const b = before.get(name) ?? { ticks: 0, switches: 0, count: 0 };
    const us = (((a.ticks - b.ticks) / TICK) * 1e6) / units;
    const sw = (a.switches - b.switches) / units;
    if (us > 0 || sw >= 0.01) rows.push([name, us, sw]);
  }
  rows.sort((x, y) => y[1] - x[1]);
  return rows.map(([name, us, sw]) => `${name} ${us.toFixed(0)} µs ${sw.toFixed(2)} sw`).join(", ");
}
