export * from "./types.ts";
export { createBus, type CreateBusOptions } from "./create-bus.ts";
export { createMemoryBus, MemoryBroker, type MemoryBusOptions } from "./memory-bus.ts";
export { connectNatsBus, type NatsBusOptions } from "./nats-bus.ts";
export { JOB_DEFAULTS, RESULT_DEFAULTS } from "./topology.ts";
