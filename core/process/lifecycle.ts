import type { Logger } from "../log.ts";

type Step = () => Promise<void>;

let received: string | null = null;

/** The signal that asked this process to stop, if one has: a start that fails after it failed because of it. */
export function stopSignal(): string | null {
  return received;
}

/**
 * Takes SIGINT and SIGTERM from now on; the returned function hands over the shutdown steps once the process has
 * started. On a signal the steps run once, in order (in-flight work first, then the database), then the process
 * exits 0. A signal that comes while the process is still starting waits for the start to finish, so it stops in
 * order too (and the embedded PostgreSQL with it) instead of dying with its children left running. A second signal
 * exits at once — unless it comes within a second of the first: `npm start` forwards to us the signal our process
 * group also got.
 */
export function shutdownOnSignal(log: Logger): (steps: Step[]) => void {
  let started!: (steps: Step[]) => void;
  const steps = new Promise<Step[]>((resolve) => (started = resolve));
  let stoppingSince = 0;
  const stop = async (signal: string) => {
    if (stoppingSince && Date.now() - stoppingSince < 1000) return;
    if (stoppingSince) process.exit(1);
    stoppingSince = Date.now();
    received = signal;
    log.info({ op: "shutdown", signal }, "shutting down");
    for (const step of await steps) {
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
  return started;
}
