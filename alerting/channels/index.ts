export * from "./types.ts";
export * from "./registry.ts";
export { createChannelContext } from "./context.ts";
