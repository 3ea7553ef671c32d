import { readFileSync } from "node:fs";
import type { Browser, BrowserContext, BrowserContextOptions } from "playwright-core";
import type { Logger } from "../../../core/log.ts";
import { CheckAbortedError, CheckUnavailableError } from "../check-errors.ts";
import { type Engine, launchEngine, requireEngine } from "./engines.ts";
import { BrowserLostError } from "./pool-errors.ts";
import { childPids, privateMemoryBytes, processTree } from "./process-tree.ts";

export interface BrowserPoolOptions {
  /** Engines this pool offers (from BROWSERS); each gets `size` warm browsers. */
  engines: Engine[];
  /** BROWSER_POOL_SIZE: warm browsers per engine, which is also how many browser checks run at once per engine. */
  size: number;
  /** A browser is replaced after this many checks. Default 50. */
  maxUses?: number;
  /** Hard cap of one check's time with a browser, whatever the check's own timeout. Default 130 s. */
  maxCheckMs?: number;
  /** Cap of one browser's memory (all its processes, private resident memory) while a check runs. Default 1024 MB. */
  memoryCapMb?: number;
  /** How often the memory is sampled during a check. Default 250 ms. */
  memorySampleMs?: number;
  /** JavaScript heap limit per renderer (Chromium). Default: three quarters of memoryCapMb. */
  jsHeapMb?: number;
  executablePaths?: Partial<Record<Engine, string>>;
  /** Extra browser switches (tests map names to loopback with --host-resolver-rules). */
  extraArgs?: string[];
  launchTimeoutMs?: number;
  /**
   * Chromium's HTTPS goes through the guard proxy's TLS relay, verified with the process's trust
   * store (set when NODE_EXTRA_CA_CERTS names extra CAs: Chromium does not read that variable).
   */
  relayTls?: boolean;
  log?: Logger;
}

/** What a check holds while it runs: a fresh context in a warm browser, and the signal that ends it. */
export interface BrowserLease {
  engine: Engine;
  browser: Browser;
  context: BrowserContext;
  /** Fires with a BrowserLostError when the pool takes the browser away (crash, memory or time cap, closing). */
  signal: AbortSignal;
  /** Highest memory of the browser seen during this check, in bytes (null where /proc is unavailable). */
  peakMemoryBytes(): number | null;
}

export interface UseOptions {
  /** The caller's cancellation (shutdown): waiting or running, the use rejects with CheckAbortedError. */
  signal?: AbortSignal;
  /** Longest wait for a free browser before CheckUnavailableError. Default 30 s. */
  maxWaitMs?: number;
  context?: BrowserContextOptions;
}

interface Slot {
  index: number;
  engine: Engine;
  browser: Browser | null;
  pid: number | null;
  uses: number;
  busy: boolean;
  /** Launch or shutdown in progress; the slot is usable once it settles. */
  pending: Promise<void> | null;
  /** The running check's lease controller, aborted when the browser is lost. */
  lease: AbortController | null;
}

export interface PoolStats {
  engine: Engine;
  warm: number;
  busy: number;
  waiting: number;
  launches: number;
  recycled: number;
}

/**
 * Warm browsers for browser checks. Each check gets a fresh context (no cookies, storage or
 * cache from another check) in a browser that runs nothing else meanwhile, so the browser's
 * memory is that check's. A browser is replaced after `maxUses` checks, after it crashes, and
 * when a check goes over the memory or time cap; a replacement is launched straight away so
 * the pool stays warm.
 */
export class BrowserPool {
  private readonly slots: Slot[] = [];
  private readonly waiters = new Map<Engine, (() => void)[]>();
  private readonly paths = new Map<Engine, string>();
  private readonly counters = new Map<Engine, { launches: number; recycled: number }>();
  /** Launches are serialised so the new child process can be told apart from the others. */
  private launchLock: Promise<unknown> = Promise.resolve();
  private closed = false;
  readonly engines: readonly Engine[];

  private constructor(private readonly o: BrowserPoolOptions) {
    this.engines = [...new Set(o.engines)];
  }

  /**
   * Checks that every engine is installed (EngineUnavailableError names the missing one) and
   * launches the warm browsers. With `warm: false` browsers are launched on first use.
   */
  static async start(o: BrowserPoolOptions, { warm = true }: { warm?: boolean } = {}): Promise<BrowserPool> {
    if (!Number.isInteger(o.size) || o.size < 1) throw new Error(`browser pool size must be a positive integer, got ${o.size}`);
    const pool = new BrowserPool(o);
    for (const engine of pool.engines) {
      pool.paths.set(engine, await requireEngine(engine, o.executablePaths?.[engine]));
      pool.counters.set(engine, { launches: 0, recycled: 0 });
      for (let i = 0; i < o.size; i++) pool.slots.push({ index: i, engine, browser: null, pid: null, uses: 0, busy: false, pending: null, lease: null });
    }
    if (warm) {
      for (const slot of pool.slots) slot.pending = pool.launch(slot);
      try {
        await Promise.all(pool.slots.map((s) => s.pending));
      } catch (err) {
        await pool.close();
        throw err;
      }
    }
    return pool;
  }

  /** Whether checks on this pool's Chromium relay TLS through the guard proxy (see BrowserPoolOptions.relayTls). */
  get relaysTls(): boolean {
    return this.o.relayTls === true;
  }

  has(engine: Engine): boolean {
    return this.engines.includes(engine);
  }

  get size(): number {
    return this.o.size;
  }

  stats(): PoolStats[] {
    return this.engines.map((engine) => {
      const mine = this.slots.filter((s) => s.engine === engine);
      const c = this.counters.get(engine)!;
      return {
        engine,
        warm: mine.filter((s) => s.browser?.isConnected()).length,
        busy: mine.filter((s) => s.busy).length,
        waiting: this.waiters.get(engine)?.length ?? 0,
        launches: c.launches,
        recycled: c.recycled,
      };
    });
  }

  /** Process ids of the engine's running browsers (for tests and diagnostics). */
  browserPids(engine: Engine): number[] {
    return this.slots.filter((s) => s.engine === engine && s.pid !== null && s.browser?.isConnected()).map((s) => s.pid!);
  }

  /**
   * Runs `fn` with a fresh context in a browser of `engine` and closes the context afterwards.
   * Rejects with CheckUnavailableError (no such engine, no free browser in time), with
   * CheckAbortedError (caller abort), or with BrowserLostError when the pool took the browser away.
   */
  async use<T>(engine: Engine, fn: (lease: BrowserLease) => Promise<T>, opts: UseOptions = {}): Promise<T> {
    if (!this.has(engine)) throw new CheckUnavailableError(`no ${engine} browser here (BROWSERS offers ${this.engines.join(", ") || "none"})`);
    const slot = await this.acquire(engine, opts);
    const lease = new AbortController();
    slot.lease = lease;
    let peak: number | null = null;
    let recycle = false;
    const lose = (reason: BrowserLostError) => {
      if (lease.signal.aborted) return;
      recycle = true;
      lease.abort(reason);
    };
    const onCallerAbort = () => lease.abort(new CheckAbortedError(engine));
    opts.signal?.addEventListener("abort", onCallerAbort, { once: true });
    const capMb = this.o.memoryCapMb ?? 1024;
    // The process list is re-read every fourth sample (renderers start with pages); memory every sample.
    let tree: number[] = [];
    let samples = 0;
    const sample = () => {
      if (slot.pid === null) return;
      if (samples++ % 4 === 0) tree = processTree(slot.pid);
      const bytes = privateMemoryBytes(tree);
      if (bytes === 0) return;
      peak = Math.max(peak ?? 0, bytes);
      if (bytes > capMb * 1024 * 1024) lose(new BrowserLostError("memory", `the page used ${Math.round(bytes / 1048576)} MB, over the ${capMb} MB cap of one browser check`));
    };
    const maxCheckMs = this.o.maxCheckMs ?? 130_000;
    const timeCap = setTimeout(() => lose(new BrowserLostError("time", `the check held its browser longer than the ${maxCheckMs} ms cap`)), maxCheckMs);
    const memoryTimer = slot.pid === null ? null : setInterval(sample, this.o.memorySampleMs ?? 250);
    let context: BrowserContext | null = null;
    try {
      const browser = slot.browser!;
      context = await raceSignal(browser.newContext(opts.context), lease.signal);
      const ctx = context;
      ctx.on("page", (page) => page.on("crash", () => lose(new BrowserLostError("crashed", "the page's renderer crashed (out of memory, or a browser fault)"))));
      return await raceSignal(fn({ engine, browser, context: ctx, signal: lease.signal, peakMemoryBytes: () => peak }), lease.signal);
    } catch (err) {
      if (err instanceof BrowserLostError) recycle = true;
      throw err;
    } finally {
      clearTimeout(timeCap);
      if (memoryTimer) clearInterval(memoryTimer);
      opts.signal?.removeEventListener("abort", onCallerAbort);
      slot.lease = null;
      slot.uses++;
      await this.settle(slot, context, recycle || slot.uses >= (this.o.maxUses ?? 50));
    }
  }

  /** Closes every browser; running checks fail with BrowserLostError("closed"). */
  async close(): Promise<void> {
    this.closed = true;
    for (const list of this.waiters.values()) for (const wake of list.splice(0)) wake();
    await Promise.all(
      this.slots.map(async (slot) => {
        slot.lease?.abort(new BrowserLostError("closed", "the browser pool is shutting down"));
        await slot.pending?.catch(() => {});
        await this.shutdown(slot);
      }),
    );
  }

  private async acquire(engine: Engine, opts: UseOptions): Promise<Slot> {
    const deadline = Date.now() + (opts.maxWaitMs ?? 30_000);
    for (;;) {
      if (opts.signal?.aborted) throw new CheckAbortedError(engine);
      if (this.closed) throw new CheckUnavailableError("the browser pool is shutting down");
      const slot = this.slots.find((s) => s.engine === engine && !s.busy && s.pending === null && s.browser?.isConnected()) ?? this.slots.find((s) => s.engine === engine && !s.busy);
      if (slot) {
        slot.busy = true;
        try {
          if (slot.pending) await slot.pending.catch(() => {});
          if (!slot.browser?.isConnected()) {
            await this.shutdown(slot);
            await (slot.pending = this.launch(slot));
          }
          return slot;
        } catch (err) {
          slot.busy = false;
          this.wake(engine);
          throw new CheckUnavailableError(`could not start a ${engine} browser: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`);
        }
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new CheckUnavailableError(`no ${engine} browser became free within ${opts.maxWaitMs ?? 30_000} ms (BROWSER_POOL_SIZE ${this.o.size}, all busy)`);
      await new Promise<void>((resolve) => {
        const list = this.waiters.get(engine) ?? [];
        this.waiters.set(engine, list);
        const done = () => {
          clearTimeout(timer);
          opts.signal?.removeEventListener("abort", done);
          const i = list.indexOf(done);
          if (i >= 0) list.splice(i, 1);
          resolve();
        };
        const timer = setTimeout(done, left);
        opts.signal?.addEventListener("abort", done, { once: true });
        list.push(done);
      });
    }
  }

  private wake(engine: Engine): void {
    this.waiters.get(engine)?.shift()?.();
  }

  /** After a check: close its context, replace the browser when asked, free the slot. */
  private async settle(slot: Slot, context: BrowserContext | null, recycle: boolean): Promise<void> {
    if (context && !recycle) {
      const closed = await Promise.race([context.close().then(() => true, () => false), Bun.sleep(5000).then(() => false)]);
      if (!closed) recycle = true;
    }
    if (recycle || !slot.browser?.isConnected()) {
      this.counters.get(slot.engine)!.recycled++;
      this.o.log?.info({ op: "browser.pool", engine: slot.engine, slot: slot.index, uses: slot.uses }, "recycling browser");
      await this.shutdown(slot);
      // Relaunch in the background so the pool stays warm; the next check waits for it if needed.
      if (!this.closed) slot.pending = this.launch(slot).catch((err) => this.o.log?.warn({ op: "browser.pool", engine: slot.engine, err }, "browser relaunch failed; retrying on next use"));
    }
    slot.busy = false;
    this.wake(slot.engine);
  }

  private launch(slot: Slot): Promise<void> {
    const run = async () => {
      if (this.closed) throw new Error("the browser pool is shutting down");
      const before = childPids(process.pid);
      const browser = await launchEngine(slot.engine, {
        executablePath: this.paths.get(slot.engine)!,
        extraArgs: this.o.extraArgs,
        jsHeapMb: this.o.jsHeapMb ?? Math.floor((this.o.memoryCapMb ?? 1024) * 0.75),
        timeoutMs: this.o.launchTimeoutMs,
      });
      slot.browser = browser;
      slot.pid = findBrowserPid(before);
      slot.uses = 0;
      this.counters.get(slot.engine)!.launches++;
      browser.on("disconnected", () => {
        if (slot.browser !== browser) return;
        slot.lease?.abort(new BrowserLostError("crashed", `the ${slot.engine} browser crashed or was killed`));
      });
    };
    const next = this.launchLock.then(run, run);
    this.launchLock = next.catch(() => {});
    return next.finally(() => {
      if (slot.pending === next) slot.pending = null;
    });
  }

  /** Closes the slot's browser, killing it when close does not finish promptly. */
  private async shutdown(slot: Slot): Promise<void> {
    const { browser, pid } = slot;
    slot.browser = null;
    slot.pid = null;
    if (!browser) return;
    const closed = await Promise.race([browser.close().then(() => true, () => false), Bun.sleep(3000).then(() => false)]);
    if (!closed && pid !== null) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  }
}

/** The browser process just launched: a new child of ours whose command line shows Playwright's profile. */
function findBrowserPid(before: Set<number>): number | null {
  const fresh = [...childPids(process.pid)].filter((p) => !before.has(p));
  const browser = fresh.find((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, "utf8").includes("playwright_");
    } catch {
      return false;
    }
  });
  return browser ?? (fresh.length === 1 ? fresh[0]! : null);
}

/** Settles with `work`, or rejects with the signal's reason as soon as it fires. */
function raceSignal<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
