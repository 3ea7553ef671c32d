export * from "./types.ts";
export * from "./registry.ts";
export { createChannelContext, createNodemailerTransport, defaultEndpoints, systemClock, type ChannelContextOptions } from "./context.ts";
export { createHttpFetch } from "./http.ts";
export { WebhookPayload, toWebhookPayload } from "./webhook/payload.ts";
export { signWebhook } from "./webhook/webhook.ts";
