import type { Logger } from "../log.ts";

/**
 * Runs the shutdown steps once, in order, on SIGINT or SIGTERM (in-flight work first,
 * then the database), then exits. A second signal exits at once.
 */
export function onShutdown(log: Logger, steps: (() => Promise<void>)[]): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    log.info({ op: "shutdown", signal }, "shutting down");
    for (const step of steps) {
      try {
        await step();
      } catch (err) {
        log.error({ op: "shutdown", err }, "shutdown step failed");
      }
    }
    log.info({ op: "shutdown" }, "stopped");
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}
