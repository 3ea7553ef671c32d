import { readdirSync, readFileSync } from "node:fs";

const PAGE = 4096;

/**
 * pid → parent pid of the processes in /proc (Linux; empty elsewhere), only those with a pid of at
 * least `minPid`: a browser's children are started after it, so a scan for its tree skips the rest
 * of the machine (a pid counter that wrapped around meanwhile only hides a process from the count).
 */
function parentsByPid(minPid = 0): Map<number, number> {
  const parents = new Map<number, number>();
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return parents;
  }
  for (const name of entries) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid < minPid) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // The command name may contain spaces and parentheses: fields start after the last ")".
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      parents.set(pid, Number(fields[1]));
    } catch {
      // The process ended while we looked.
    }
  }
  return parents;
}

/** Direct children of `pid`. */
export function childPids(pid: number): Set<number> {
  const out = new Set<number>();
  for (const [child, parent] of parentsByPid()) if (parent === pid) out.add(child);
  return out;
}

/** `pid` and every process below it; empty when `pid` is gone. */
export function processTree(pid: number): number[] {
  const parents = parentsByPid(pid);
  if (!parents.has(pid)) return [];
  const children = new Map<number, number[]>();
  for (const [child, parent] of parents) children.set(parent, [...(children.get(parent) ?? []), child]);
  const out: number[] = [];
  const stack = [pid];
  while (stack.length > 0) {
    const p = stack.pop()!;
    out.push(p);
    stack.push(...(children.get(p) ?? []));
  }
  return out;
}

/**
 * Private resident memory of the processes, in bytes: resident pages minus shared (file-backed and
 * shared-memory) pages, from /proc/<pid>/statm. Cheap enough to sample often, and it does not count
 * the browser's shared libraries once per process the way a sum of RSS would.
 */
export function privateMemoryBytes(pids: number[]): number {
  let total = 0;
  for (const p of pids) {
    try {
      const [, resident, shared] = readFileSync(`/proc/${p}/statm`, "utf8").split(" ").map(Number);
      total += Math.max(0, (resident! - shared!) * PAGE);
    } catch {
      // Ended meanwhile.
    }
  }
  return total;
}

/** Private resident memory of a browser and everything it started (renderers, GPU, network service). */
export function treeMemoryBytes(pid: number): number {
  return privateMemoryBytes(processTree(pid));
}

/** CPU time (user + system) used so far by `pid` and every process below it, in milliseconds. */
export function treeCpuMs(pid: number): number {
  const tick = 1000 / 100; // USER_HZ is 100 on Linux
  let total = 0;
  for (const p of processTree(pid)) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      total += (Number(f[11]) + Number(f[12])) * tick;
    } catch {
      // Ended meanwhile.
    }
  }
  return total;
}
