import { describe, expect, it } from "bun:test";
import { type Claim, MemoryConsumer, MemoryStream } from "./memory-stream.ts";

const settings = { ackWaitMs: 60_000, maxDeliveries: 0, duplicateWindowMs: 120_000, maxAgeMs: 3_600_000 };

/** Claims every deliverable message of `consumer` now (or the next ones to become deliverable within `ms`). */
function claim(consumer: MemoryConsumer, ms = 0): Promise<number[]> {
  return new Promise((resolve) => {
    const seqs: number[] = [];
    const stop = consumer.pull(10_000, false, (c: Claim) => seqs.push(c.message.seq), () => resolve(seqs));
    setTimeout(() => {
      stop();
      resolve(seqs);
    }, ms);
  });
}

describe("memory stream de-duplication", () => {
  it("drops a duplicate within the window and forgets ids once they are older than it", async () => {
    const stream = new MemoryStream("JOBS", true, { ...settings, duplicateWindowMs: 1500 });
    // More than the FIFO's compaction threshold, so duplicates are looked up across a compaction too.
    for (let i = 0; i < 3000; i++) expect(stream.publish("jobs.a", { id: i }, `chk_${i}`).duplicate).toBe(false);
    expect(stream.publish("jobs.a", { id: 5 }, "chk_5")).toEqual({ seq: 6, duplicate: true });
    expect(stream.rememberedIds).toBe(3000);

    await Bun.sleep(1600);
    expect(stream.publish("jobs.a", { id: "late" }, "chk_late").duplicate).toBe(false);
    expect(stream.rememberedIds).toBe(1);
    expect(stream.publish("jobs.a", { id: 5 }, "chk_5").duplicate).toBe(false);
    for (let i = 0; i < 3000; i++) stream.publish("jobs.a", { id: i }, `again_${i}`);
    expect(stream.publish("jobs.a", {}, "again_2999").duplicate).toBe(true);
    expect(stream.publish("jobs.a", {}, "chk_late").duplicate).toBe(true);
    expect(stream.rememberedIds).toBe(3002);
  });
});

describe("memory consumer ack deadlines", () => {
  it("redelivers what was not acked by its deadline, in order, and not what was acked or kept working", async () => {
    const stream = new MemoryStream("JOBS", true, settings);
    const consumer = new MemoryConsumer("c", stream, { filter: "jobs.>", ackWaitMs: 1000, maxDeliveries: 0 });
    stream.consumers.set("c", consumer);
    for (let i = 1; i <= 6; i++) stream.publish("jobs.a", { i }, `m${i}`);
    expect(await claim(consumer)).toEqual([1, 2, 3, 4, 5, 6]);
    consumer.ack(2);
    consumer.ack(5);
    await Bun.sleep(500);
    consumer.working(3); // its deadline is now 1 s from here, after the others'
    expect(await claim(consumer, 750)).toEqual([1, 4, 6]);
    for (const seq of [1, 4, 6]) consumer.ack(seq);
    expect(await claim(consumer, 1000)).toEqual([3]);
    consumer.ack(3);
    expect(await claim(consumer, 1200)).toEqual([]);
    consumer.close();
  });

  it("gives a delivery up at max deliveries when its deadline passes", async () => {
    const stream = new MemoryStream("JOBS", true, settings);
    const consumer = new MemoryConsumer("c", stream, { filter: "jobs.>", ackWaitMs: 300, maxDeliveries: 2 });
    stream.consumers.set("c", consumer);
    stream.publish("jobs.a", {}, "poison");
    expect(await claim(consumer)).toEqual([1]);
    expect(await claim(consumer, 600)).toEqual([1]);
    expect(await claim(consumer, 700)).toEqual([]);
    consumer.close();
  });
});
