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
  servePortBus(createMemoryBus({ ...opts, broker }), channel.port1, opts.log ?? (await import("../log.ts")).silentLogger);
  return createPortBus(channel.port2);
});
