import { ConfigError, exitOnConfigError } from "../core/config/parse-env.ts";
import { stopSignal } from "../core/process/lifecycle.ts";
import { runAllInOne } from "./all-in-one.ts";

/** `bun run start`: every role in one process (see all-in-one.ts). A start that fails exits at once, with the reason. */
await runAllInOne(process.env).catch((err: unknown) => {
  if (err instanceof ConfigError) exitOnConfigError(err);
  // Ctrl-C reaches the whole process group: a child the start was waiting for (initdb, say) stopped with it.
  const signal = stopSignal();
  if (signal) {
    process.stderr.write(`watchpost: stopped by ${signal} while starting\n`);
    process.exit(0);
  }
  process.stderr.write(`watchpost: could not start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
