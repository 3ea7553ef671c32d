import { describe, expect, it } from "bun:test";
import { silentLogger } from "../log.ts";
import { runBusSuite } from "./bus.case.ts";
import { createMemoryBus, MemoryBroker } from "./memory-bus.ts";
import { createPortBus } from "./port-bus.ts";
import { servePortBus } from "./port-bus-host.ts";

const brokers = new Map<string, MemoryBroker>();

// Each client is a port bus whose host serves an in-process bus on the prefix's broker: the shape of a worker
// thread talking to the all-in-one's bus (a MessageChannel here; a Worker's port in the all-in-one).
runBusSuite("port bus", async (opts) => {
  const broker = brokers.get(opts.prefix) ?? new MemoryBroker();
  brokers.set(opts.prefix, broker);
  const channel = new MessageChannel();
  servePortBus(createMemoryBus({ ...opts, broker }), channel.port1, opts.log ?? silentLogger);
  return createPortBus(channel.port2);
});

/** A port that counts what it posts (each post wakes the thread on the other side). */
function counted(port: MessagePort): { port: MessagePort; posts(): number } {
  let posts = 0;
  const post = port.postMessage.bind(port);
  port.postMessage = ((message: unknown) => {
    posts++;
    post(message);
  }) as typeof port.postMessage;
  return { port, posts: () => posts };
}

describe("port bus crossings", () => {
  it("crosses once each way per job when jobs trickle in, as a worker publishes each job's result and returns", async () => {
    const bus = createMemoryBus();
    await bus.ensureTopology({ resultDurables: [{ name: "ingest" }] });
    const channel = new MessageChannel();
    const host = counted(channel.port1);
    const client = counted(channel.port2);
    servePortBus(bus, host.port, silentLogger);
    const thread = createPortBus(client.port);
    let handled = 0;
    const consumer = await thread.consumeJobs<{ id: string }>("jobs.region.eu", { maxInFlight: 10 }, async (d, slot) => {
      slot.release();
      await thread.publishResult("results.org1.mon1", { id: d.data.id });
      handled++;
    });
    const [hostBefore, clientBefore] = [host.posts(), client.posts()];
    const jobs = 40;
    for (let i = 0; i < jobs; i++) {
      await bus.publishJob("jobs.region.eu", { id: `job-${i}` });
      // The next job comes once this one's result is on the bus, as at a few hundred checks a second.
      for (let waited = 0; (await bus.pendingResults("ingest")) <= i && waited < 1000; waited++) await Bun.sleep(1);
    }
    for (let waited = 0; handled < jobs && waited < 1000; waited++) await Bun.sleep(1);
    expect(handled).toBe(jobs);
    // Before: four crossings per job (the job; the result; the publish's answer; the job's settlement).
    expect(host.posts() - hostBefore).toBeLessThanOrEqual(jobs + 2);
    expect(client.posts() - clientBefore).toBeLessThanOrEqual(jobs + 2);
    await consumer.stop();
    expect(await bus.pendingJobs("jobs.region.eu")).toBe(0);
    await thread.close();
    await bus.close();
  });
});
