import { parseArgs } from "node:util";
import { Type } from "@sinclair/typebox";
import { provisionOrg } from "../domain/accounts/provision.ts";
import { reencryptStoredSecrets } from "../domain/secrets/rotate-secret-key.ts";
import { sealPlaintextMonitorSecrets } from "../domain/monitors/seal-plaintext.ts";
import { sealPlaintextSubscriberWebhooks } from "../domain/status-pages/seal-plaintext.ts";
import { rekeyResults } from "../domain/results/result-key.ts";
import { previousSecretKeys } from "../core/crypto/secret-key.ts";
import { SecretBox } from "../core/crypto/secrets.ts";
import { commonEnv } from "../core/config/common.ts";
import { exitOnConfigError, parseEnv } from "../core/config/parse-env.ts";
import { openDatabase } from "../db/open.ts";
import { AppError } from "../core/errors.ts";
import { createLogger } from "../core/log.ts";

const USAGE = `usage: bun run cli org:create --name NAME --email EMAIL --password PASSWORD [--user-name "OWNER NAME"] [--plan free|starter|pro|business|unlimited]
                                  (--user-name: the owner's display name; default the part of EMAIL before @)
       bun run cli secret-key:rotate     (SECRET_KEY = the new key, SECRET_KEY_PREVIOUS = the old ones; docs/operations.md)
       bun run cli results:rekey         (check_results' unique key due time first, now; TimescaleDB: holds writes while it builds)`;

/** Commands for automation and self-hosters; each prints one JSON line on success. */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "secret-key:rotate" && rest.length === 0) return rotateSecretKey();
  if (command === "results:rekey" && rest.length === 0) return rekeyStoredResults();
  if (command !== "org:create") {
    process.stderr.write(`${USAGE}\n`);
    return 64;
  }
  let values: { name?: string; email?: string; password?: string; plan?: string; "user-name"?: string };
  try {
    ({ values } = parseArgs({ args: rest, options: { name: { type: "string" }, email: { type: "string" }, password: { type: "string" }, plan: { type: "string" }, "user-name": { type: "string" } } }));
  } catch (err) {
    // An unknown option or one without its value: say which, then how to call.
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 64;
  }
  if (!values.name || !values.email || !values.password) {
    process.stderr.write(`${USAGE}\n`);
    return 64;
  }
  const config = parseEnv(Type.Object(commonEnv), process.env);
  const log = createLogger({ level: config.LOG_LEVEL === "info" ? "warn" : config.LOG_LEVEL, format: config.LOG_FORMAT, name: "cli", stderr: true });
  const db = await openDatabase(config, log, { migrate: true, poolSize: 2, movablePort: !process.env.EMBEDDED_PG_PORT });
  try {
    const result = await provisionOrg(db.sql, { name: values.name, email: values.email, password: values.password, planId: values.plan, userName: values["user-name"] });
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof AppError) {
      process.stderr.write(`${JSON.stringify(err.toBody())}\n`);
      return 1;
    }
    throw err;
  } finally {
    await db.close();
  }
}

/** Re-encrypts every stored secret with SECRET_KEY; prints the counts; exits 1 when a value was readable with none of the keys. */
async function rotateSecretKey(): Promise<number> {
  const config = parseEnv(Type.Object(commonEnv), process.env);
  if (!config.SECRET_KEY) {
    process.stderr.write("secret-key:rotate needs SECRET_KEY (the new key) and SECRET_KEY_PREVIOUS (the old ones)\n");
    return 64;
  }
  const log = createLogger({ level: config.LOG_LEVEL === "info" ? "warn" : config.LOG_LEVEL, format: config.LOG_FORMAT, name: "cli", stderr: true });
  const db = await openDatabase(config, log, { migrate: true, poolSize: 2, movablePort: !process.env.EMBEDDED_PG_PORT });
  try {
    const box = new SecretBox(config.SECRET_KEY, previousSecretKeys(config.SECRET_KEY_PREVIOUS));
    // Secrets an older release stored in the clear are encrypted first, so this run covers them too.
    const sealed = await sealPlaintextMonitorSecrets(db.sql, box, log);
    const sealedSubscribers = await sealPlaintextSubscriberWebhooks(db.sql, box);
    const report = await reencryptStoredSecrets(db.sql, box);
    process.stdout.write(`${JSON.stringify({ ...report, sealed_plaintext_monitors: sealed, sealed_plaintext_subscribers: sealedSubscribers })}\n`);
    return report.unreadable > 0 ? 1 : 0;
  } finally {
    await db.close();
  }
}

/**
 * Moves check_results' unique key to (scheduled_at, job_id) now (migration 20261127140000): on plain storage what
 * housekeeping would do within the hour, without blocking ingest; on TimescaleDB the one-transaction build housekeeping
 * leaves to an operator, since it holds writes to check_results until it ends. Prints the outcome.
 */
async function rekeyStoredResults(): Promise<number> {
  const config = parseEnv(Type.Object(commonEnv), process.env);
  const log = createLogger({ level: config.LOG_LEVEL === "info" ? "warn" : config.LOG_LEVEL, format: config.LOG_FORMAT, name: "cli", stderr: true });
  const db = await openDatabase(config, log, { migrate: true, poolSize: 2, movablePort: !process.env.EMBEDDED_PG_PORT });
  try {
    const started = performance.now();
    const outcome = await rekeyResults(db.sql, { lockingBuild: true });
    process.stdout.write(`${JSON.stringify({ ...outcome, seconds: Math.round((performance.now() - started) / 100) / 10 })}\n`);
    return outcome.done ? 0 : 1;
  } finally {
    await db.close();
  }
}

process.exit(await main(process.argv.slice(2)).catch(exitOnConfigError));
