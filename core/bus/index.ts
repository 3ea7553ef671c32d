export * from "./types.ts";
export { createBus } from "./create-bus.ts";
export { canSpillResults, createMemoryBus } from "./memory-bus.ts";
export { connectNatsBus } from "./nats-bus.ts";
export { frozenJsonCopy } from "./frozen-copy.ts";
