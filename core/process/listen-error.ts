import { ConfigError } from "../config/parse-env.ts";

/**
 * For `.catch()` on starting a listener: a port already in use becomes a ConfigError naming the
 * variable that sets it (so the process exits like on any bad variable); anything else is rethrown.
 */
export function listenError(variable: string, port: number) {
  return (err: unknown): never => {
    if ((err as { code?: string })?.code === "EADDRINUSE") {
      throw new ConfigError(`${variable}=${port} is taken by another process: set ${variable} to a free port`);
    }
    throw err;
  };
}
