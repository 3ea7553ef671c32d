export * from "./types.ts";
export * from "./registry.ts";
export { createChannelContext, defaultEndpoints, systemClock, type ChannelContextOptions } from "./context.ts";
export { createHttpFetch } from "./http.ts";
export { WebhookPayload, toWebhookPayload } from "./webhook/payload.ts";
export { signWebhook } from "./webhook/webhook.ts";
