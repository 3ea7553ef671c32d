import { describe, expect, it } from "bun:test";
import { runBusSuite } from "./bus.case.ts";
import { createMemoryBus, MemoryBroker } from "./memory-bus.ts";

const brokers = new Map<string, MemoryBroker>();

runBusSuite("memory bus", async (opts) => {
  const broker = brokers.get(opts.prefix) ?? new MemoryBroker();
  brokers.set(opts.prefix, broker);
  return createMemoryBus({ ...opts, broker });
});

describe("memory bus results retention", () => {
  it("drops a result once every durable that wants it has acked it, and keeps one nobody has taken yet", async () => {
    const broker = new MemoryBroker();
    const bus = createMemoryBus({ broker });
    await bus.ensureTopology({ resultDurables: [{ name: "ingest" }, { name: "alerting" }] });
    const stored = () => [...broker.streams.values()].find((s) => !s.workQueue)!.messages.size;
    for (let i = 0; i < 50; i++) await bus.publishResult(`results.org1.mon${i % 5}`, { id: `r${i}` });
    expect(stored()).toBe(50);

    const seen = { ingest: 0, alerting: 0 };
    const consume = (durable: "ingest" | "alerting") =>
      bus.consumeResults<{ id: string }>(durable, { batchSize: 10, maxWaitMs: 5 }, async (batch) => {
        seen[durable] += batch.length;
      });
    const ingest = await consume("ingest");
    await Bun.sleep(100);
    expect(seen.ingest).toBe(50);
    expect(stored()).toBe(50); // alerting has not taken them yet
    const alerting = await consume("alerting");
    await Bun.sleep(100);
    expect(seen.alerting).toBe(50);
    expect(stored()).toBe(0);

    await bus.publishResult("results.org1.mon1", { id: "late" });
    await Bun.sleep(100);
    expect(seen).toEqual({ ingest: 51, alerting: 51 });
    expect(stored()).toBe(0);
    await Promise.all([ingest.stop(), alerting.stop()]);
    await bus.close();
  });
});

describe("memory bus ack deadlines", () => {
  it("redelivers each unacked job at its own deadline, also one claimed later with a shorter ack wait", async () => {
    const bus = createMemoryBus();
    await bus.ensureTopology();
    for (const id of ["a", "b", "c"]) await bus.publishJob("jobs.region.eu", { id });
    const t0 = Date.now();
    const [a] = await bus.fetchJobs<{ id: string }>("jobs.region.eu", 1, 1000, { ackWaitMs: 2000 });
    await Bun.sleep(100);
    // The consumer's ack wait is now 300 ms: b's deadline comes before a's.
    const [b] = await bus.fetchJobs<{ id: string }>("jobs.region.eu", 1, 1000, { ackWaitMs: 300 });
    const [c] = await bus.fetchJobs<{ id: string }>("jobs.region.eu", 1, 1000, { ackWaitMs: 300 });
    c!.ack();
    a!.ack();
    const [again] = await bus.fetchJobs<{ id: string }>("jobs.region.eu", 1, 3000, { ackWaitMs: 300 });
    const after = Date.now() - t0;
    expect([a!.data.id, b!.data.id, again!.data.id, again!.deliveryCount]).toEqual(["a", "b", "b", 2]);
    expect(after).toBeGreaterThanOrEqual(380);
    expect(after).toBeLessThan(1500);
    again!.ack();
    expect(await bus.fetchJobs("jobs.region.eu", 1, 400, { ackWaitMs: 300 })).toEqual([]);
    await bus.close();
  });
});
