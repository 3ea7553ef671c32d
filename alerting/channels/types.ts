import type { TObject } from "@sinclair/typebox";
import type { ValidationIssue } from "../../core/errors.ts";
import type { Logger } from "../../core/log.ts";

import type { AlertEventKind } from "../../schemas/channels/channel-spec.ts";

export { alertEventKinds, type AlertEventKind } from "../../schemas/channels/channel-spec.ts";

/** Check statuses the spec names; open so a new check status needs no change here. */
export type CheckStatus = "up" | "down" | "degraded" | "timeout" | (string & {});

/** What a channel delivers: one alert incarnation's moment, with the kind inside. */
export interface AlertEvent {
  kind: AlertEventKind;
  /** Stable for one alert incarnation, e.g. `${ruleId}:${monitorId}:${region}:${incarnation}`; paging tools key incidents on it. */
  dedupKey: string;
  /** Unique per (incarnation, channel, kind, sequence); the same on every retry of one delivery. */
  idempotencyKey: string;
  rule: { id: string; name: string };
  monitor: { id: string; name: string; type: string; target?: string };
  region: string;
  status: CheckStatus;
  /** Human summary of the rule's condition, e.g. "status is down or timeout". */
  condition: string;
  result: { duration_ms: number; error?: string; data?: Record<string, unknown> };
  /** ISO time the alert started firing. */
  startedAt: string;
  /** ISO time of this event (the recovery, the reminder, ...). */
  occurredAt: string;
  org: { id: string; name: string };
  links: { monitor?: string; ackUrl?: string; unsubscribe?: string };
}

/** What the receiving end said; stored in alert history with the attempt. */
export interface DeliveryReceipt {
  /** HTTP status, or SMTP reply code. */
  status?: number;
  /** Provider's id for what was created: SMTP Message-ID, Telegram message_id, Opsgenie requestId, PagerDuty dedup_key. */
  providerId?: string;
  /** Short note worth keeping, e.g. recipients the SMTP server refused. */
  detail?: string;
}

export interface ChannelErrorOptions {
  /** True when retrying the same delivery cannot succeed (4xx other than 408/429, bad address, refused target). */
  permanent: boolean;
  status?: number;
  /** Cut-down body of the failed response. */
  body?: string;
  /** Wait the receiver asked for (Retry-After, Telegram retry_after). */
  retryAfterMs?: number;
}

/** A failed delivery: says what happened and whether retrying could help. */
export class ChannelError extends Error {
  override readonly name = "ChannelError";
  readonly permanent: boolean;
  readonly status?: number;
  readonly body?: string;
  readonly retryAfterMs?: number;

  constructor(message: string, options: ChannelErrorOptions) {
    super(message);
    this.permanent = options.permanent;
    this.status = options.status;
    this.body = options.body;
    this.retryAfterMs = options.retryAfterMs;
  }
}

export interface HttpRequestInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  redirect?: "manual" | "follow" | "error";
}

/** The part of a fetch Response channels read; both undici's and the global fetch satisfy it. */
export interface HttpResponse {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}

export type HttpFetch = (url: string, init: HttpRequestInit) => Promise<HttpResponse>;

export interface Clock {
  now(): Date;
  sleep(ms: number): Promise<void>;
}

/** Deployment SMTP settings (from the environment, never from a channel's config). */
export interface SmtpSettings {
  host: string;
  port: number;
  /** TLS from the first byte (465); false means STARTTLS when offered. */
  secure: boolean;
  auth?: { user: string; pass: string };
  /** Sender, e.g. `Watchpost <alerts@example.com>`. */
  from: string;
}

export interface SmtpMessage {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

export interface SmtpSendInfo {
  messageId: string;
  accepted: unknown[];
  rejected: unknown[];
  response: string;
}

export interface SmtpTransport {
  sendMail(message: SmtpMessage): Promise<SmtpSendInfo>;
  close(): void;
}

/** Base URLs of the fixed-endpoint providers; tests point them at loopback receivers. */
export interface ChannelEndpoints {
  telegram: string;
  pagerduty: string;
  opsgenie: { us: string; eu: string };
}

/** Everything a channel reaches the outside world through. Built once per process by createChannelContext. */
export interface ChannelContext {
  fetch: HttpFetch;
  clock: Clock;
  /** Undefined when this deployment has no SMTP configured. */
  smtp?: SmtpSettings;
  createSmtpTransport(settings: SmtpSettings, timeoutMs: number): SmtpTransport;
  log: Logger;
  /** Where the dashboard lives, for links in messages. */
  publicBaseUrl: string;
  endpoints: ChannelEndpoints;
  /** Limit for one delivery attempt (connect + response). */
  timeoutMs: number;
}

export interface Channel<Config> {
  readonly type: string;
  /** TypeBox object schema; unknown keys are rejected. */
  readonly configSchema: TObject;
  /** Config keys holding secrets: encrypted at rest by the caller, masked on read. */
  readonly secretFields: readonly string[];
  /** Checks the schema cannot express; runs only on a config the schema accepted. */
  validate?(config: Config): ValidationIssue[];
  send(event: AlertEvent, config: Config, ctx: ChannelContext): Promise<DeliveryReceipt>;
}
