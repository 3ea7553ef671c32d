/**
 * An in-process heap probe for the benches (`bun --preload bench/heap-probe.ts scripts/start.ts`, which
 * bench/scale.ts --heap-probe DIR does): every HEAP_PROBE_MS (default 10,000) each JavaScript thread of the process
 * appends one JSON line to DIR/heap-<thread>.jsonl: its JSC heap (size, capacity, extra memory, object count), the
 * process's mimalloc committed bytes and RSS, and the object types by count. With HEAP_PROBE_GC=1 it then runs a
 * full collection and appends the same after it ("live"), so the line before is live plus garbage.
 *
 * With HEAP_PROBE_SNAPSHOT=1 each thread also writes one V8-format heap snapshot (Bun.generateHeapSnapshot, after
 * a full collection) to DIR/heap-<thread>.heapsnapshot at its fourth sample (40 s after start; `bench/scale.ts --heap-probe DIR --env HEAP_PROBE_SNAPSHOT=1`): open it in Chrome's DevTools, or summarise it
 * with `bun bench/heap-snapshot.ts FILE` (what the live heap holds by kind of node and string pattern).
 *
 * Bench tooling only, never loaded by the service. Preloads do not reach worker threads, so on the main thread a
 * runtime plugin gives the check threads' Worker (runner/cloud/worker-threads.ts) this file as its preload.
 */
import { heapStats } from "bun:jsc";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { isMainThread, threadId } from "node:worker_threads";

const dir = process.env.HEAP_PROBE_DIR;
const everyMs = Number(process.env.HEAP_PROBE_MS ?? 10_000);
const withGc = process.env.HEAP_PROBE_GC === "1";
const withSnapshot = process.env.HEAP_PROBE_SNAPSHOT === "1";
const TOP = 40;

if (dir) {
  mkdirSync(dir, { recursive: true });
  const file = `${dir}/heap-${isMainThread ? "main" : `thread-${threadId}`}.jsonl`;
  const sample = (phase: "before-gc" | "live" | "sample") => {
    const h = heapStats();
    const m = (h as { mimalloc?: unknown }).mimalloc as { committed?: { current: number }; process?: { rss_current: number } } | undefined;
    const types = Object.entries(h.objectTypeCounts)
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP);
    const line = {
      t: Date.now(),
      phase,
      heapSize: h.heapSize,
      heapCapacity: h.heapCapacity,
      extraMemorySize: h.extraMemorySize,
      objectCount: h.objectCount,
      protectedObjectCount: h.protectedObjectCount,
      mimallocCommitted: m?.committed?.current ?? null,
      rss: m?.process?.rss_current ?? process.memoryUsage.rss(),
      types: Object.fromEntries(types),
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  };
  let ticks = 0;
  const tick = () => {
    if (withSnapshot && ++ticks === 4) {
      Bun.gc(true);
      writeFileSync(file.replace(/\.jsonl$/, ".heapsnapshot"), Bun.generateHeapSnapshot("v8"));
    }
    sample(withGc ? "before-gc" : "sample");
    if (!withGc) return;
    Bun.gc(true);
    sample("live");
  };
  setInterval(tick, everyMs).unref();

  if (isMainThread) {
    const self = import.meta.path;
    const source = /new Worker\(new URL\("\.\/thread-main\.ts", import\.meta\.url\)\)/;
    Bun.plugin({
      name: "heap-probe: check threads",
      setup(build) {
        build.onLoad({ filter: /runner\/cloud\/worker-threads\.ts$/ }, async ({ path }) => {
          const text = await Bun.file(path).text();
          if (!source.test(text)) throw new Error(`heap-probe: ${path} no longer starts its threads as this probe expects; update bench/heap-probe.ts`);
          const contents = text.replace(source, `new Worker(new URL("./thread-main.ts", import.meta.url), { preload: [${JSON.stringify(self)}] } as never)`);
          return { contents, loader: "ts" };
        });
      },
    });
  }
}
