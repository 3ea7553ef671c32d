import { createPaddleProvider } from "./paddle/paddle.ts";
import type { BillingProvider } from "./types.ts";

export interface ProviderConfig {
  BILLING: boolean;
  PADDLE_API_URL: string;
  PADDLE_API_KEY?: string;
  PADDLE_WEBHOOK_SECRETS?: string;
  BILLING_WEBHOOK_WINDOW_SECONDS: number;
}

/** The configured payment provider, or null with BILLING=off or without credentials. */
export function providerFromConfig(config: ProviderConfig): BillingProvider | null {
  if (!config.BILLING || !config.PADDLE_API_KEY || !config.PADDLE_WEBHOOK_SECRETS) return null;
  return createPaddleProvider({
    apiUrl: config.PADDLE_API_URL.replace(/\/$/, ""),
    apiKey: config.PADDLE_API_KEY,
    webhookSecrets: config.PADDLE_WEBHOOK_SECRETS.split(",").map((s) => s.trim()).filter(Boolean),
    replayWindowSeconds: config.BILLING_WEBHOOK_WINDOW_SECONDS,
  });
}
