/**
 * Results published and consumed per second through each Bus implementation, with a batch
 * consumer as ingest uses it. Usage: bun bench/bus.ts [count] (NATS_URL, default loopback).
 */
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { connectNatsBus } from "../core/bus/nats-bus.ts";
import { createMemoryBus, MemoryBroker } from "../core/bus/memory-bus.ts";
import type { Bus, BusOptions } from "../core/bus/types.ts";

const count = Number(process.argv[2] ?? 50_000);
const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const WINDOW = 1000;
const BATCH = 500;

interface Result {
  id: string;
  orgId: string;
  monitorId: string;
  region: string;
  status: "up" | "down";
  latencyMs: number;
  timings: Record<string, number>;
  checkedAt: string;
}

const result = (i: number): Result => ({
  id: `job_${i.toString().padStart(10, "0")}`,
  orgId: `org_${i % 50}`,
  monitorId: `mon_${i % 2000}`,
  region: "eu-west",
  status: i % 97 === 0 ? "down" : "up",
  latencyMs: 40 + (i % 300),
  timings: { dns: 3, connect: 11, tls: 24, firstByte: 60, total: 98 },
  checkedAt: new Date().toISOString(),
});

async function measure(label: string, open: (opts: BusOptions & { prefix: string }) => Promise<Bus>): Promise<void> {
  const prefix = `bench${Math.floor(Math.random() * 1e6)}_`;
  const [producer, consumer] = [await open({ prefix }), await open({ prefix })];
  // Both durables exist from the start: the in-process bus drops a result every existing durable has settled.
  await producer.ensureTopology({ resultDurables: [{ name: "ingest" }, { name: "replay" }] });
  const rows = Array.from({ length: count }, (_, i) => result(i));
  const bytes = JSON.stringify(rows[0]).length;

  let consumed = 0;
  let batches = 0;
  let allConsumed = () => {};
  const finished = new Promise<void>((r) => (allConsumed = r));
  const started = performance.now();
  const handle = await consumer.consumeResults<Result>("ingest", { batchSize: BATCH, maxWaitMs: 50 }, (batch) => {
    consumed += batch.length;
    batches++;
    if (consumed >= count) allConsumed();
  });

  for (let i = 0; i < count; i += WINDOW) {
    await Promise.all(rows.slice(i, i + WINDOW).map((r) => producer.publishResult(`results.${r.orgId}.${r.monitorId}`, r)));
  }
  const published = performance.now();
  await finished;
  const done = performance.now();
  await handle.stop();

  // A second durable drains the stored backlog: how fast ingest catches up after a pause.
  let replayed = 0;
  let allReplayed = () => {};
  const replayDone = new Promise<void>((r) => (allReplayed = r));
  const replayStart = performance.now();
  const replay = await consumer.consumeResults<Result>("replay", { batchSize: BATCH, maxWaitMs: 50 }, (batch) => {
    replayed += batch.length;
    if (replayed >= count) allReplayed();
  });
  await replayDone;
  const replayMs = performance.now() - replayStart;
  await replay.stop();
  await Promise.all([producer.close(), consumer.close()]);

  const rate = (n: number, ms: number) => Math.round((n / ms) * 1000).toLocaleString("en");
  console.log(
    `${label.padEnd(7)} ${count.toLocaleString("en")} results of ${bytes} B: ` +
      `publish ${rate(count, published - started)}/s, publish+consume ${rate(count, done - started)}/s ` +
      `(${(done - started).toFixed(0)} ms, ${batches} batches, avg ${(consumed / batches).toFixed(0)}), ` +
      `backlog consume ${rate(count, replayMs)}/s`,
  );
  if (label === "nats") await dropStreams(prefix);
}

async function dropStreams(prefix: string): Promise<void> {
  const nc = await connect({ servers: natsUrl });
  const jsm = await jetstreamManager(nc);
  await Promise.all([`${prefix}JOBS`, `${prefix}RESULTS`].map((s) => jsm.streams.delete(s).catch(() => false)));
  await nc.close();
}

const broker = new MemoryBroker();
await measure("memory", async (opts) => createMemoryBus({ ...opts, broker }));
await measure("nats", (opts) => connectNatsBus({ ...opts, url: natsUrl }));
