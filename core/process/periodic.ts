import type { Logger } from "../log.ts";

export interface PeriodicTask {
  /** Resolves once the run in progress (if any) has finished. */
  stop(): Promise<void>;
}

/**
 * Runs `task` now and then `intervalMs` after each run ends (never two runs at once). A failed run
 * is logged and the next one still comes; `stop` waits for the run in progress.
 */
export function runPeriodically(op: string, intervalMs: number, task: () => Promise<unknown>, log: Logger): PeriodicTask {
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | null = null;
  const tick = () => {
    timer = null;
    if (stopped) return;
    running = task()
      .catch((err) => log.error({ op, err }, "periodic task failed"))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  timer = setTimeout(tick, 0);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
