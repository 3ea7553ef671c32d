import { type Logger, silentLogger } from "../../core/log.ts";
import { createHttpFetch } from "../../core/http/guarded-fetch.ts";
import { createNodemailerTransport, type SmtpSettings } from "../../core/mail/smtp-transport.ts";
import type { ChannelContext, ChannelEndpoints, Clock, HttpFetch } from "./types.ts";

export const defaultEndpoints: ChannelEndpoints = {
  telegram: "https://api.telegram.org",
  pagerduty: "https://events.pagerduty.com/v2/enqueue",
  opsgenie: { us: "https://api.opsgenie.com", eu: "https://api.eu.opsgenie.com" },
};

const systemClock: Clock = {
  now: () => new Date(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export interface ChannelContextOptions {
  publicBaseUrl: string;
  /** Deployment setting (ALLOW_PRIVATE_IPS in all-in-one mode); false on hosted deployments. */
  allowPrivateAddresses?: boolean;
  /** Let channels connect over IPv6 (see createHttpFetch). */
  ipv6?: boolean;
  smtp?: SmtpSettings;
  log?: Logger;
  timeoutMs?: number;
  endpoints?: Partial<ChannelEndpoints>;
  fetch?: HttpFetch;
  clock?: Clock;
  createSmtpTransport?: ChannelContext["createSmtpTransport"];
}

/** Builds the context once per process from already-parsed deployment config. */
export function createChannelContext(options: ChannelContextOptions): ChannelContext {
  const timeoutMs = options.timeoutMs ?? 10_000;
  return {
    fetch: options.fetch ?? createHttpFetch({
        allowPrivateAddresses: options.allowPrivateAddresses ?? false,
        ipv6: options.ipv6 ?? false,
        connectTimeoutMs: timeoutMs,
      }),
    clock: options.clock ?? systemClock,
    smtp: options.smtp,
    createSmtpTransport: options.createSmtpTransport ?? createNodemailerTransport,
    log: options.log ?? silentLogger,
    publicBaseUrl: options.publicBaseUrl.replace(/\/+$/, ""),
    endpoints: { ...defaultEndpoints, ...options.endpoints },
    timeoutMs,
  };
}
