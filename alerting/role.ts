import type { Registry } from "prom-client";
import type { Bus } from "../core/bus/index.ts";
import type { SecretBox } from "../core/crypto/secrets.ts";
import type { Sql } from "../db/client.ts";
import type { Logger } from "../core/log.ts";
import { smtpSettingsOf } from "../core/config/smtp.ts";
import { createLogMailer, type Mailer } from "../core/mail/mailer.ts";
import { createSmtpMailer } from "../core/mail/smtp-mailer.ts";
import { startSubscriberDispatcher } from "./notices/subscriber-notices.ts";
import { startMailOutbox } from "./outbox/mail-outbox.ts";
import { startReportSweep } from "./reports/report-sweep.ts";
import { createChannelContext } from "./channels/index.ts";
import type { AlertingConfig } from "./config.ts";
import { INGEST_DURABLE, startIngest } from "./ingest/ingest.ts";
import { startPresenceRecorder } from "./ingest/presence.ts";
import { startRunnerWatch } from "./runtime/runner-watch.ts";
import type { BlindTime } from "../core/process/blind-time.ts";
import { startChannelTestServer } from "./rpc/channel-test.ts";
import { type AlertingOptions, startAlerting } from "./runtime/start.ts";

/**
 * The alerting role: result ingest (persist, roll up, publish live events) and rule evaluation with
 * its dispatcher, each on its own durable RESULTS consumer, plus the in-app notices of runners going
 * offline and coming back. Several processes may run it at once.
 */
export async function startAlertingRole(input: {
  config: AlertingConfig;
  sql: Sql;
  bus: Bus;
  box: SecretBox;
  log: Logger;
  options?: AlertingOptions;
  /** Process registry for the role's metrics. */
  registry?: Registry;
  /** Replaces the mail transport (SMTP when SMTP_HOST is set, else the log); tests capture mail with it. */
  mailer?: Mailer;
  /** What this process could not see (core/process/blind-time.ts); the all-in-one passes its own. */
  blind?: BlindTime;
}) {
  const { config, sql, bus, box, log } = input;
  const ingest = await startIngest({ sql, bus, log, registry: input.registry });
  const presence = await startPresenceRecorder({ sql, bus, log });
  const channelCtx = createChannelContext({
    publicBaseUrl: config.PUBLIC_BASE_URL,
    allowPrivateAddresses: config.ALLOW_PRIVATE_IPS,
    timeoutMs: config.ALERTING_CHANNEL_TIMEOUT_MS,
    smtp: smtpSettingsOf(config),
    log,
  });
  const alerting = await startAlerting({
    sql,
    bus,
    box,
    log,
    channelCtx,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    registry: input.registry,
    options: {
      pollMs: config.ALERTING_POLL_MS,
      leaseMs: config.ALERTING_LEASE_MS,
      maxAttempts: config.ALERTING_MAX_ATTEMPTS,
      retryBaseMs: config.ALERTING_RETRY_BASE_MS,
      ...input.options,
    },
  });
  const runners = startRunnerWatch(sql, log, config.ALERTING_RUNNER_SWEEP_MS, input.blind);
  const channelTests = await startChannelTestServer({ sql, bus, box, log, channelCtx });
  // The outboxes the API writes: transactional mail, and incident notices to status-page subscribers.
  const smtp = smtpSettingsOf(config);
  const mailer = input.mailer ?? (smtp ? createSmtpMailer(smtp, config.ALERTING_CHANNEL_TIMEOUT_MS) : createLogMailer(log));
  const mail = await startMailOutbox({ sql, box, mailer, log });
  const notices = await startSubscriberDispatcher({ sql, box, mailer, baseUrl: config.PUBLIC_BASE_URL, log, channelCtx });
  // Scheduled report emails: queued into the mail outbox above when due.
  const reports = startReportSweep({ sql, box, baseUrl: config.PUBLIC_BASE_URL, log });
  log.info({ op: "alerting.start" }, "ingest and alerting started");
  const durables = [INGEST_DURABLE, input.options?.durable ?? "alerting"];
  return {
    /**
     * Waits (up to `maxMs`) until both durables have taken every result published so far. The
     * all-in-one mode calls it after its worker stopped: its in-process bus keeps results only in
     * memory, so a result not yet stored and evaluated at exit would be lost. Returns whether it drained.
     */
    async drain(maxMs = 10_000): Promise<boolean> {
      const end = Date.now() + maxMs;
      for (;;) {
        const pending = await Promise.all(durables.map((d) => bus.pendingResults(d)));
        if (pending.every((n) => n === 0)) return true;
        if (Date.now() >= end) {
          log.warn({ op: "alerting.drain", pending: Object.fromEntries(durables.map((d, i) => [d, pending[i]])) }, "results still pending at shutdown");
          return false;
        }
        await Bun.sleep(25);
      }
    },
    async stop() {
      await channelTests.stop();
      await reports.stop();
      await notices.stop();
      await mail.stop();
      await runners.stop();
      await alerting.stop();
      await ingest.stop();
      await presence.stop();
    },
  };
}
