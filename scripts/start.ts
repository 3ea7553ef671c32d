import { ConfigError, exitOnConfigError } from "../core/config/parse-env.ts";
import { runAllInOne } from "./all-in-one.ts";

/** `bun run start`: every role in one process (see all-in-one.ts). A start that fails exits at once, with the reason. */
await runAllInOne(process.env).catch((err: unknown) => {
  if (err instanceof ConfigError) exitOnConfigError(err);
  process.stderr.write(`watchpost: could not start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
