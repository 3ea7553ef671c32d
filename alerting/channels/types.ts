import type { TObject } from "@sinclair/typebox";
import type { ValidationIssue } from "../../core/errors.ts";
import type { Logger } from "../../core/log.ts";
import type { SmtpSettings, SmtpTransport } from "../../core/mail/smtp-transport.ts";

// Guarded outbound HTTP (core/http) and the SMTP transport (core/mail) are the kernel's.
import type { HttpFetch } from "../../core/http/guarded-fetch.ts";
export type { HttpFetch };

// The event a channel delivers is the engine's (alerting/engine/alert-event.ts); channels import it from here.
export { alertEventKinds, type AlertEvent, type AlertEventKind } from "../engine/alert-event.ts";
import type { AlertEvent } from "../engine/alert-event.ts";
import type { BoundTemplate } from "../service/message-template.ts";
export type { BoundTemplate };

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

export interface Clock {
  now(): Date;
  sleep(ms: number): Promise<void>;
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
  /**
   * `template` is the channel's own message template bound to this event (alerting/service/message-template.ts),
   * undefined when it has none: the channel places its title and body, rendered in its spec's messageFormat.
   */
  send(event: AlertEvent, config: Config, ctx: ChannelContext, template?: BoundTemplate): Promise<DeliveryReceipt>;
}
