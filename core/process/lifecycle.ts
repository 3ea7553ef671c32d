import type { Logger } from "../log.ts";

/**
 * Runs the shutdown steps once, in order, on SIGINT or SIGTERM (in-flight work first,
 * then the database), then exits. A second signal exits at once — unless it comes within
 * a second of the first: `npm start` forwards to us the signal our process group also got.
 */
export function onShutdown(log: Logger, steps: (() => Promise<void>)[]): void {
  let stoppingSince = 0;
  const stop = async (signal: string) => {
    if (stoppingSince && Date.now() - stoppingSince < 1000) return;
    if (stoppingSince) process.exit(1);
    stoppingSince = Date.now();
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
