import { afterEach, describe, expect, it, setSystemTime } from "bun:test";
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

/** A reproducible pseudo-random sequence in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

describe("memory stream de-duplication, against a model that keeps every id's text", () => {
  afterEach(() => setSystemTime());

  it("answers every publish as the model does while the window fills, drains and fills again", () => {
    const windowMs = 1000;
    const stream = new MemoryStream("JOBS", true, { ...settings, duplicateWindowMs: windowMs, maxAgeMs: 1 });
    // The model: the old exact scheme (every id as a string, a FIFO of publish times).
    const seqOf = new Map<string, number>();
    const fifo: { id: string; at: number }[] = [];
    let fifoHead = 0;
    let lastSeq = 0;
    const mismatches: string[] = [];
    const publish = (id: string, now: number) => {
      while (fifoHead < fifo.length && now - fifo[fifoHead]!.at >= windowMs) seqOf.delete(fifo[fifoHead++]!.id);
      const seen = seqOf.get(id);
      const expected = seen !== undefined ? { seq: seen, duplicate: true } : { seq: ++lastSeq, duplicate: false };
      if (seen === undefined) {
        seqOf.set(id, expected.seq);
        fifo.push({ id, at: now });
      }
      const got = stream.publish("jobs.a", {}, id);
      if (got.seq !== expected.seq || got.duplicate !== expected.duplicate) {
        mismatches.push(`${id} at ${now}: ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
      }
      return expected.duplicate;
    };
    // Simulated time, 10 ms a step: 100 steps per window. The window grows to 200,000 ids (the table grows several
    // times and hundreds of blocks are dropped), drains to a few dozen (it shrinks), then fills again.
    const firstOfStep: string[] = [];
    const next = random(24);
    const tally = { duplicates: 0, againAfterWindow: 0 };
    let fresh = 0;
    let now = Date.UTC(2026, 10, 26);
    for (const [steps, perStep] of [[100, 50], [300, 2000], [150, 5], [200, 500]] as const) {
      for (let step = 0; step < steps; step++, now += 10) {
        setSystemTime(new Date(now));
        for (let n = 0; n < perStep; n++) {
          const id = `mon_0193${(fresh % 20_000).toString(16).padStart(28, "0")}.local.${now + fresh++}`;
          publish(id, now);
          if (n === 0) firstOfStep.push(id);
        }
        // Ids of the last 1.5 windows again: those within the window are duplicates, the others new.
        for (let r = 0; r < 20; r++) {
          const old = firstOfStep[firstOfStep.length - 1 - Math.floor(next() * Math.min(firstOfStep.length, 150))]!;
          if (publish(old, now)) tally.duplicates++;
          else tally.againAfterWindow++;
        }
        if (stream.rememberedIds !== fifo.length - fifoHead) mismatches.push(`${stream.rememberedIds} ids at ${now}`);
      }
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
    expect(tally.duplicates).toBeGreaterThan(5000);
    expect(tally.againAfterWindow).toBeGreaterThan(300);
    expect(lastSeq).toBeGreaterThan(700_000);

    // Past the window everything is forgotten and accepted again.
    setSystemTime(new Date(now + windowMs));
    expect(stream.publish("jobs.a", {}, firstOfStep.at(-1)!)).toEqual({ seq: lastSeq + 1, duplicate: false });
    expect(stream.rememberedIds).toBe(1);
  });

  it("takes a million distinct ids shaped as the scheduler's job ids for new, and each of them again for a duplicate", () => {
    const stream = new MemoryStream("JOBS", true, { ...settings, duplicateWindowMs: 3_600_000 });
    const monitors = Array.from({ length: 20_000 }, () => `mon_${Bun.randomUUIDv7().replaceAll("-", "")}`);
    const due = Date.now();
    const id = (i: number) => `${monitors[i % 20_000]}.local.${due + 30_000 * Math.floor(i / 20_000)}`;
    let collisions = 0;
    for (let i = 0; i < 1_000_000; i++) {
      if (stream.publish("jobs.a", {}, id(i)).duplicate) collisions++;
      if (i % 10_000 === 9_999) stream.purge("jobs.>"); // the ids stay, the messages need not
    }
    expect(collisions).toBe(0);
    expect(stream.rememberedIds).toBe(1_000_000);
    let wrong = 0;
    for (let i = 0; i < 1_000_000; i++) {
      const ack = stream.publish("jobs.a", {}, id(i));
      if (!ack.duplicate || ack.seq !== i + 1) wrong++;
    }
    expect(wrong).toBe(0);
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
