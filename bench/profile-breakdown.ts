/**
 * Where a Bun CPU profile's time goes, by area of the check path (#24 item 2). Reads a `.cpuprofile` written by
 * `bun --cpu-prof` (bench/scale.ts --cpu-prof DIR) and attributes every sample to the first frame, from the leaf up,
 * that lies in a file of ours or of a library (runtime frames such as node:net are skipped, so a socket write lands
 * on undici or postgres.js, whichever called it). Samples with no such frame are "runtime, unattributed": socket and
 * timer callbacks whose asynchronous caller the profiler cannot see.
 * Usage: bun bench/profile-breakdown.ts FILE.cpuprofile [--checks N] (N checks in the profile: adds CPU-ms per check)
 *          [--interval-us 1000] (the profiler's sampling interval, Bun's default)
 *          [--from MS --to MS] (only the samples taken between these wall-clock times, epoch ms: bench/scale.ts
 *            --cpu-prof prints its window's, so start-up, creation and warm-up are left out)
 *          [--request] (then every sample by what the check's request was doing, for bench/checks.ts profiles: the
 *            native connect, write and close, undici's parts, the guard, timers and listeners, result building)
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  /** Wall clock of the first sample, epoch µs (time deltas are µs too). */
  startTime: number;
}

/** Area by file; the first rule that matches a frame's file wins. */
const AREAS: [string, RegExp][] = [
  ["scheduling (scheduler/, the job builder, publish retries)", /\/scheduler\/|\/domain\/monitors\/job\.ts|\/core\/retry\.ts/],
  ["dispatch (worker loop, runner/cloud/)", /\/runner\/cloud\//],
  ["the request (checks, undici, net guard)", /\/runner\/checks\/|\/node_modules\/undici\/|\/core\/net-guard\/|\/node_modules\/ipaddr\.js\//],
  ["result building (schemas, messages)", /\/schemas\//],
  ["port bus host (the crossing to the check threads: structured clones, postMessage)", /\/core\/bus\/port-/],
  ["bus (core/bus/)", /\/core\/bus\//],
  ["ingest and rollups (alerting/ingest, domain/results, db/queries)", /\/alerting\/ingest\/|\/domain\/results\/|\/db\/queries\/results|\/db\/queries\/rollup/],
  ["alert evaluation (alerting/, its queries)", /\/alerting\/|\/db\/queries\/alert-/],
  ["SSE fan-out and API (live events, api/, elysia)", /\/domain\/events\/|\/api\/|\/node_modules\/elysia\//],
  ["logging (pino, core/log)", /\/node_modules\/pino|\/core\/log/],
  ["metrics (prom-client)", /\/node_modules\/prom-client\//],
  ["postgres.js driver (every query)", /\/node_modules\/postgres\//],
  ["other code of ours", /\/work\/|\/(core|db|domain)\//],
  ["other libraries", /\/node_modules\//],
];
const GC = "GC";
const IDLE = new Set(["(idle)", "(program)"]);

const { values, positionals } = parseArgs({ allowPositionals: true, options: { checks: { type: "string" }, request: { type: "boolean", default: false }, "interval-us": { type: "string", default: "1000" }, from: { type: "string" }, to: { type: "string" } },
});
const file = positionals[0];
if (!file) throw new Error("usage: bun bench/profile-breakdown.ts FILE.cpuprofile [--checks N]");
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const areaOf = new Map<number, string | null>();
function classify(id: number): string | null {
  const known = areaOf.get(id);
  if (known !== undefined) return known;
  let area: string | null = "runtime, unattributed (socket/timer callbacks, natives)";
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const { functionName, url } = byId.get(at)!.callFrame;
    if (at === id && IDLE.has(functionName)) {
      area = null;
      break;
    }
    if (/garbage collector/i.test(functionName)) {
      area = GC;
      break;
    }
    if (!url || url.startsWith("node:") || url.startsWith("internal:") || url === "[native code]") continue;
    const hit = AREAS.find(([, re]) => re.test(url));
    if (hit) {
      area = hit[0];
      break;
    }
  }
  areaOf.set(id, area);
  return area;
}

const micros = new Map<string, number>();
let total = 0;
// Each sample stands for one sampling interval of CPU (the profiler samples only a running thread, so the time
// deltas between samples include idle gaps and are not used as weights).
const interval = Number(values["interval-us"]);
const fromUs = values.from ? Number(values.from) * 1000 : Number.NEGATIVE_INFINITY;
const toUs = values.to ? Number(values.to) * 1000 : Number.POSITIVE_INFINITY;
let at = profile.startTime;
for (let i = 0; i < profile.samples.length; i++) {
  at += profile.timeDeltas[i] ?? 0;
  if (at < fromUs || at > toUs) continue;
  const area = classify(profile.samples[i]!);
  if (area === null) continue;
  micros.set(area, (micros.get(area) ?? 0) + interval);
  total += interval;
}
const checks = values.checks ? Number(values.checks) : 0;
console.log(`${(total / 1e6).toFixed(2)} s of CPU samples${checks ? ` over ${checks} checks: ${(total / 1000 / checks).toFixed(3)} CPU-ms per check` : ""}`);
for (const [area, us] of [...micros].sort((a, b) => b[1] - a[1])) {
  const perCheck = checks ? `  ${((us / 1000 / checks) * 1000).toFixed(0).padStart(5)} µs/check` : "";
  console.log(`${((us / total) * 100).toFixed(1).padStart(5)} %${perCheck}  ${area}`);
}

if (values.request) {
  // First rule that matches a sample's stack (leaf first) wins. Native leaves are the system calls themselves.
  type Frame = { fn: string; url: string };
  const on = (stack: Frame[], re: RegExp) => stack.some((f) => re.test(`${f.fn}@${f.url}`));
  const REQUEST: [string, (stack: Frame[]) => boolean][] = [
    ["start-up and the bench's own code", (st) => on(st, /^require@|bench\/checks\.ts/) && !on(st, /^runCheck@/)],
    ["TCP connect (native: socket, connect(2); loopback runs the handshake inline)", (st) => st[0]!.fn === "doConnect"],
    ["request write (native write(2); loopback runs the target's receive inline)", (st) => st[0]!.fn === "writeBuffered"],
    ["socket close (native close(2))", (st) => st[0]!.fn === "close" && st[0]!.url === ""],
    ["GC frames the sampler sees", (st) => /^gc$|garbage collector/i.test(st[0]!.fn)],
    ["error objects undici builds (its reset, the socket's close)", (st) => on(st, /Error@.*undici/)],
    ["net guard (IP literal: parse, classify)", (st) => on(st, /net-guard|ipaddr/)],
    ["timers, abort signals, listeners", (st) => /^(setTimeout|clearTimeout|AbortController|AbortSignal|addEventListener|removeEventListener|abort|throwIfAborted)$/.test(st[0]!.fn)],
    ["undici Client construction", (st) => on(st, /^(Client|PooledClient)@/)],
    ["undici response parsing (llhttp, headers, body callbacks)", (st) => on(st, /^(execute|readMore|onHeadersComplete|onMessageBegin|onMessageComplete|onStatus|onHeaderField|onHeaderValue|onBody|parseHeaders|wasm_on_\w+|Parser)@.*undici/)],
    ["undici request and dispatch (Request, connect, writeH1 in JS)", (st) => on(st, /undici/)],
    ["socket creation and stream machinery (node:net in JS)", (st) => on(st, /node:net|internal:streams|node:events/) && on(st, /open-connection|http-exchange/)],
    ["result building and validation (runCheck, defineCheck, judging)", (st) => on(st, /registry\.ts|define-check|http-probe|assertions|expected-status|compile-assertion|typebox/) && !on(st, /http-client|open-connection|http-exchange/)],
    ["our request code (http-client, open-connection, http-exchange)", (st) => on(st, /http-client|open-connection|http-exchange/)],
    ["node:net, streams, events (caller not seen)", (st) => on(st, /node:net|internal:streams|node:events/)],
    ["runtime, unattributed", () => true],
  ];
  const byRule = new Map<string, number>();
  let sampled = 0;
  for (const sample of profile.samples) {
    const stack: Frame[] = [];
    for (let at: number | undefined = sample; at !== undefined; at = parent.get(at)) {
      const { functionName, url } = byId.get(at)!.callFrame;
      stack.push({ fn: functionName, url });
    }
    if (IDLE.has(stack[0]!.fn)) continue;
    sampled++;
    const rule = REQUEST.find(([, matches]) => matches(stack))![0];
    byRule.set(rule, (byRule.get(rule) ?? 0) + 1);
  }
  console.log(`\nthe request, ${sampled} samples (every sample, --from/--to not applied):`);
  for (const [rule] of REQUEST) {
    const n = byRule.get(rule) ?? 0;
    const perCheck = checks ? `  ${((n * interval) / checks).toFixed(1).padStart(6)} µs/check` : "";
    console.log(`${((n / sampled) * 100).toFixed(1).padStart(5)} %${perCheck}  ${rule}`);
  }
}
