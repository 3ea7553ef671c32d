import { startSmtpReceiver, type SmtpReceiver } from "../../alerting/channels/email/smtp-receiver.ts";
import { loadApiConfig } from "../../api/config.ts";
import { buildApiDeps, startApiServer, type ApiServer } from "../../api/server.ts";
import { createMemoryBus } from "../../core/bus/index.ts";
import { silentLogger } from "../../core/log.ts";
import { createSmtpMailer } from "../../core/mail/smtp-mailer.ts";
import { startOutboxes, TEST_SECRET_KEY, type TestApi } from "../support/api.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";

export interface ReportStack {
  db: TestDatabase;
  server: ApiServer;
  smtp: SmtpReceiver;
  /** What the status-page helpers take. */
  api: TestApi;
  /** Delivers every queued mail now, over SMTP to `smtp`. */
  flushMail(): Promise<void>;
  stop(): Promise<void>;
}

/** An API on its own database, with the alerting role's mail deliverer sending over SMTP to a real receiver on loopback. */
export async function startReportStack(): Promise<ReportStack> {
  const db = await createTestDatabase();
  const smtp = await startSmtpReceiver();
  const config = loadApiConfig({ DATABASE_URL: db.url, PORT: "0", HOST: "127.0.0.1", RATE_LIMIT_PER_IP: "100000", RATE_LIMIT_PER_ORG: "100000", RATE_LIMIT_PER_SESSION: "100000", LOG_LEVEL: "silent" });
  const server = await startApiServer(buildApiDeps({ sql: db.sql, config, log: silentLogger, secretKey: TEST_SECRET_KEY, bus: createMemoryBus() }));
  const outboxes = await startOutboxes(server, createSmtpMailer(smtp.settings));
  const api = { url: server.url, sql: db.sql, db, server } as unknown as TestApi;
  return {
    db,
    server,
    smtp,
    api,
    flushMail: outboxes.flush,
    async stop() {
      await server.stop(1000);
      await outboxes.stop();
      await smtp.close();
      await db.drop();
    },
  };
}
