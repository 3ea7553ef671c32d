import type { Sql } from "../../db/client.ts";
import type { Logger } from "../../core/log.ts";

export interface OutboxLoop {
  /** Runs a pass soon (a row was written). */
  wake(): void;
  /** Runs passes until one finds nothing due; passes never overlap, so what was due is sent when it resolves. */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Drives one outbox table: a pass (claim due rows, send, record) runs when `channel` is NOTIFYed by
 * any process, and every `pollMs` for retries. Several processes may run it: rows are claimed with SKIP LOCKED.
 */
export async function startOutboxLoop(o: { sql: Sql; channel: string; op: string; log: Logger; pollMs: number; pass: () => Promise<number> }): Promise<OutboxLoop> {
  let running = true;
  let wakeUp: (() => void) | null = null;
  let pending = false;
  let chain: Promise<unknown> = Promise.resolve();
  const exclusive = (): Promise<number> => {
    const run = chain.then(o.pass);
    chain = run.catch(() => {});
    return run;
  };
  const wake = () => {
    pending = true;
    wakeUp?.();
  };
  const listener = await o.sql.listen(o.channel, wake).catch((err) => {
    o.log.warn({ op: o.op, err }, "outbox: LISTEN failed, polling only");
    return null;
  });
  const loop = (async () => {
    while (running) {
      pending = false;
      try {
        if ((await exclusive()) > 0) continue;
      } catch (err) {
        o.log.error({ op: o.op, err }, "outbox pass failed");
      }
      if (pending || !running) continue;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, o.pollMs);
        wakeUp = () => {
          clearTimeout(t);
          resolve();
        };
      });
      wakeUp = null;
    }
  })();
  return {
    wake,
    async flush() {
      while ((await exclusive()) > 0);
    },
    async stop() {
      running = false;
      wake();
      await loop;
      await listener?.unlisten().catch(() => {});
    },
  };
}
