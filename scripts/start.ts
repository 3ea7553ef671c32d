import { runApi } from "../api/main.ts";
import { exitOnConfigError } from "../core/config/parse-env.ts";

/**
 * `bun run start`: the all-in-one mode. Every role in one process on the embedded PostgreSQL
 * (unless DATABASE_URL is set) and the in-process bus (unless NATS_URL is set).
 */
await runApi(process.env).catch(exitOnConfigError);
