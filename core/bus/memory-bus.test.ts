import { runBusSuite } from "./bus.case.ts";
import { createMemoryBus, MemoryBroker } from "./memory-bus.ts";

const brokers = new Map<string, MemoryBroker>();

runBusSuite("memory bus", async (opts) => {
  const broker = brokers.get(opts.prefix) ?? new MemoryBroker();
  brokers.set(opts.prefix, broker);
  return createMemoryBus({ ...opts, broker });
});
