/**
 * What one message between two threads costs in Bun (the check threads' port bus, core/bus/port-wire.ts): a worker
 * thread echoes every message back over a MessageChannel; the main thread sends N round trips of an HTTP check's result
 * message, as a structured clone or as a JSON string, either back to back (the other thread stays awake) or one every
 * 2 ms (it sleeps between them and each message wakes it, as checks trickling in at a few hundred a second do).
 * Prints CPU-µs per round trip of the process; "timer only" is the 2 ms timer's own cost, to subtract.
 *
 * Usage: bun bench/port-crossing.ts [--trips 3000]
 */
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { loadAverage } from "./lib/proc.ts";

const { values } = parseArgs({ options: { trips: { type: "string", default: "3000" } } });
const TRIPS = Number(values.trips);

const echo = `
  const { parentPort } = require("node:worker_threads");
  parentPort.once("message", (port) => {
    port.onmessage = (e) => port.postMessage(typeof e.data === "string" ? JSON.stringify(JSON.parse(e.data)) : e.data);
  });`;
const worker = new Worker(echo, { eval: true });
const channel = new MessageChannel();
worker.postMessage(channel.port2, [channel.port2] as never);

/** One crossing of the port bus as the thread sends it: a publish call carrying an HTTP check's result. */
const message = [
  {
    t: "call",
    id: 1234,
    method: "publishResult",
    args: [
      "results.org_01JD8ZQ.mon_01JD8ZR",
      {
        id: "mon_01JD8ZR.local.1764150000000",
        org_id: "org_01JD8ZQ",
        monitor_id: "mon_01JD8ZR",
        location: "local",
        location_type: "region",
        scheduled_at: 1764150000000,
        checked_at: 1764150000003,
        status: "up",
        duration_ms: 4.2,
        error: null,
        data: { status_code: 200, timings: { dns: 0, connect: 0.4, tls: null, first_byte: 2.1, total: 4.2 }, body_bytes: 2, headers: null, cert: null, screenshots: null },
      },
    ],
  },
];

async function run(label: string, gapMs: number, send: () => void): Promise<void> {
  let got = 0;
  let done = () => {};
  const all = new Promise<void>((resolve) => (done = resolve));
  channel.port1.onmessage = (e) => {
    if (typeof e.data === "string") JSON.parse(e.data);
    if (++got === TRIPS) done();
  };
  const u0 = process.cpuUsage();
  for (let i = 0; i < TRIPS; i++) {
    send();
    if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
  if (label !== "timer only") await all;
  const u = process.cpuUsage(u0);
  console.log(`${label.padEnd(16)} gap ${gapMs} ms | CPU-µs per round trip ${((u.user + u.system) / TRIPS).toFixed(1)}`);
}

console.log(`bench/port-crossing: ${TRIPS} round trips, load average ${loadAverage(3)}`);
await Bun.sleep(200);
for (let pass = 0; pass < 2; pass++) {
  for (const gap of [0, 2]) {
    if (gap > 0) await run("timer only", gap, () => {});
    await run("structured clone", gap, () => channel.port1.postMessage(message));
    await run("JSON string", gap, () => channel.port1.postMessage(JSON.stringify(message)));
  }
}
console.log(`load average ${loadAverage()}`);
channel.port1.close();
await worker.terminate();
