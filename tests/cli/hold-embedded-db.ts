/**
 * A CLI command that takes its time, for tests/cli/embedded-sharing.test.ts: opens the database exactly as
 * cli/main.ts does (the embedded PostgreSQL of DATA_DIR unless DATABASE_URL), prints "ready", then answers
 * one line per command on stdin: "query" runs a query and prints "ok", "exit" closes as the CLI does and exits.
 */
import { Type } from "@sinclair/typebox";
import { createInterface } from "node:readline";
import { commonEnv } from "../../core/config/common.ts";
import { parseEnv } from "../../core/config/parse-env.ts";
import { createLogger } from "../../core/log.ts";
import { openDatabase } from "../../db/open.ts";

const config = parseEnv(Type.Object(commonEnv), process.env);
const log = createLogger({ level: "error", format: "json", name: "cli" });
const db = await openDatabase(config, log, { migrate: true, poolSize: 2, movablePort: !process.env.EMBEDDED_PG_PORT });
process.stdout.write("ready\n");
for await (const line of createInterface({ input: process.stdin })) {
  if (line === "query") {
    const [row] = await db.sql`select count(*)::int as n from organisations`;
    process.stdout.write(`ok ${row!.n}\n`);
  } else if (line === "exit") {
    await db.close();
    process.exit(0);
  }
}
