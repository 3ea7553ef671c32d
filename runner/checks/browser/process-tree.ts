import { readdirSync, readFileSync } from "node:fs";

/** pid → parent pid of every process visible in /proc (Linux); empty elsewhere. */
function parentsByPid(): Map<number, number> {
  const parents = new Map<number, number>();
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return parents;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // The command name may contain spaces and parentheses: fields start after the last ")".
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      parents.set(Number(name), Number(fields[1]));
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

/** `pid` and every process below it. */
export function processTree(pid: number): number[] {
  const parents = parentsByPid();
  const children = new Map<number, number[]>();
  for (const [child, parent] of parents) children.set(parent, [...(children.get(parent) ?? []), child]);
  const out: number[] = [];
  const stack = [pid];
  while (stack.length > 0) {
    const p = stack.pop()!;
    if (p !== pid && !parents.has(p)) continue;
    out.push(p);
    stack.push(...(children.get(p) ?? []));
  }
  return parents.has(pid) ? out : [];
}

/**
 * Memory of one process in bytes: its proportional set size (shared pages split between the
 * processes sharing them, so a browser's processes add up honestly), else its resident set.
 */
function processMemory(pid: number): number {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    const pss = /^Pss:\s+(\d+) kB/m.exec(rollup);
    if (pss) return Number(pss[1]) * 1024;
  } catch {
    // No smaps_rollup (old kernel, or the process ended): fall back to RSS.
  }
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const rss = /^VmRSS:\s+(\d+) kB/m.exec(status);
    return rss ? Number(rss[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Memory of a browser: its process and all of its children (renderers, GPU, network service). */
export function treeMemoryBytes(pid: number): number {
  return processTree(pid).reduce((sum, p) => sum + processMemory(p), 0);
}
