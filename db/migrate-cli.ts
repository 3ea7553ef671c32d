import { Type } from "@sinclair/typebox";
import { commonEnv } from "../core/config/common.ts";
import { exitOnConfigError, parseEnv } from "../core/config/parse-env.ts";
import { createLogger } from "../core/log.ts";
import { openDatabase } from "./open.ts";

try {
  const config = parseEnv(Type.Object(commonEnv), process.env);
  const log = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT, name: "migrate" });
  const db = await openDatabase(config, log, { migrate: true, poolSize: 1 });
  log.info({ op: "migrate", timescale: db.timescale }, "migrations applied");
  await db.close();
} catch (err) {
  exitOnConfigError(err);
}
