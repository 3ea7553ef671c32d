export * from "./types.ts";
export { createBus } from "./create-bus.ts";
export { canSpillResults, createMemoryBus, type ResultSpill, type UnsettledResult } from "./memory-bus.ts";
export { connectNatsBus } from "./nats-bus.ts";
