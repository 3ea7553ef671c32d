import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { profile, type SamplingProfileStackTraces } from "bun:jsc";

/**
 * Samples this thread's JavaScript (JavaScriptCore's sampling profiler: `bun --cpu-prof` covers only the main thread)
 * until `until` settles, then writes `thread-<index>.cpuprofile` into `dir`, the format bench/profile-breakdown.ts and
 * the browsers' devtools read. For benches (CHECK_THREADS_CPU_PROF): the samples stay in memory until the end.
 */
export async function profileThread(dir: string, index: number, until: Promise<unknown>, intervalUs = 1000): Promise<void> {
  const result = await profile(() => until.then(() => {}), intervalUs);
  // The threads stop before the main thread, whose `bun --cpu-prof` would make a new directory only then.
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `thread-${index}.cpuprofile`), JSON.stringify(toCpuProfile(result.stackTraces)));
}

/** JavaScriptCore's stack traces (leaf first, seconds) as a Chrome .cpuprofile (a call tree, sample ids, µs deltas). */
function toCpuProfile(t: SamplingProfileStackTraces) {
  const urls = new Map(t.sources.map((s) => [s.sourceID, s.url ?? s.sourceURL ?? ""]));
  const nodes = [{ id: 1, callFrame: { functionName: "(root)", url: "", scriptId: "0", lineNumber: -1, columnNumber: -1 }, hitCount: 0, children: [] as number[] }];
  const childOf = new Map<string, number>();
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  let last = t.traces[0]?.timestamp ?? 0;
  for (const trace of t.traces) {
    let at = 1;
    for (let i = trace.frames.length - 1; i >= 0; i--) {
      const f = trace.frames[i]!;
      const url = urls.get(f.sourceID) ?? "";
      const key = `${at}\u0000${f.name}\u0000${url}\u0000${f.line}`;
      let id = childOf.get(key);
      if (id === undefined) {
        id = nodes.length + 1;
        childOf.set(key, id);
        const line = f.line > 1e9 ? -1 : f.line - 1;
        nodes.push({ id, callFrame: { functionName: f.name, url, scriptId: "0", lineNumber: line, columnNumber: f.column > 1e9 ? -1 : f.column }, hitCount: 0, children: [] });
        nodes[at - 1]!.children.push(id);
      }
      at = id;
    }
    nodes[at - 1]!.hitCount++;
    samples.push(at);
    timeDeltas.push(Math.round((trace.timestamp - last) * 1e6));
    last = trace.timestamp;
  }
  const start = Math.round((t.traces[0]?.timestamp ?? 0) * 1e6);
  return { nodes, startTime: start, endTime: Math.round(last * 1e6), samples, timeDeltas };
}
