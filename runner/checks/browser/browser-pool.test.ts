import { afterEach, describe, expect, it, setDefaultTimeout } from "bun:test";
import { CheckAbortedError, CheckUnavailableError } from "../types.ts";
import { BrowserPool, type BrowserPoolOptions } from "./browser-pool.ts";
import { browserEngines, EngineUnavailableError, requireEngine } from "./engines.ts";
import { BrowserLostError } from "./pool-errors.ts";
import { treeMemoryBytes } from "./process-tree.ts";

setDefaultTimeout(60_000);

const pools: BrowserPool[] = [];
async function pool(o: Partial<BrowserPoolOptions> = {}) {
  const p = await BrowserPool.start({ engines: ["chromium"], size: 1, ...o });
  pools.push(p);
  return p;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

const until = async (cond: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await Bun.sleep(25);
  }
};

describe("browser pool", () => {
  it("keeps BROWSER_POOL_SIZE warm browsers and gives every check a fresh context", async () => {
    const p = await pool({ size: 2 });
    expect(p.stats()).toEqual([{ engine: "chromium", warm: 2, busy: 0, waiting: 0, launches: 2, recycled: 0 }]);
    expect(p.browserPids("chromium")).toHaveLength(2);
    for (const pid of p.browserPids("chromium")) expect(treeMemoryBytes(pid)).toBeGreaterThan(10 * 1024 * 1024);
    await p.use("chromium", async ({ context }) => {
      await context.addCookies([{ name: "left", value: "over", url: "http://example.test/" }]);
      expect(await context.cookies()).toHaveLength(1);
    });
    await p.use("chromium", async ({ context }) => expect(await context.cookies()).toEqual([]));
    // Two checks at once run in two browsers.
    const running: number[] = [];
    await Promise.all([0, 1].map(() => p.use("chromium", async ({ browser }) => void running.push(p.stats()[0]!.busy, browser.contexts().length))));
    expect(Math.max(...running)).toBe(2);
  });

  it("replaces a browser after maxUses checks", async () => {
    const p = await pool({ maxUses: 2 });
    const [first] = p.browserPids("chromium");
    await p.use("chromium", async () => {});
    expect(p.browserPids("chromium")).toEqual([first!]);
    await p.use("chromium", async () => {});
    await p.use("chromium", async () => {});
    expect(p.browserPids("chromium")[0]).not.toBe(first);
    expect(p.stats()[0]).toMatchObject({ launches: 2, recycled: 1 });
  });

  it("replaces a browser that crashed while idle, before the next check", async () => {
    const p = await pool();
    const [pid] = p.browserPids("chromium");
    process.kill(pid!, "SIGKILL");
    await until(() => p.stats()[0]!.warm === 0);
    const title = await p.use("chromium", async ({ context }) => {
      const page = await context.newPage();
      await page.setContent("<title>alive</title>");
      return page.title();
    });
    expect(title).toBe("alive");
    expect(p.browserPids("chromium")[0]).not.toBe(pid);
    expect(p.stats()[0]!.launches).toBe(2);
  });

  it("fails the running check when its browser crashes, then recycles it and runs the next check", async () => {
    const p = await pool();
    const [pid] = p.browserPids("chromium");
    const outcome = await p
      .use("chromium", async ({ context }) => {
        await context.newPage();
        process.kill(pid!, "SIGKILL");
        await new Promise(() => {});
      })
      .catch((err: unknown) => err);
    expect(outcome).toBeInstanceOf(BrowserLostError);
    expect((outcome as BrowserLostError).reason).toBe("crashed");
    expect(await p.use("chromium", async ({ context }) => (await context.newPage()).evaluate(() => 1 + 1))).toBe(2);
    expect(p.stats()[0]).toMatchObject({ recycled: 1, launches: 2, busy: 0 });
  });

  it("fails the check and recycles the browser when the page's renderer crashes", async () => {
    const p = await pool();
    const [pid] = p.browserPids("chromium");
    const outcome = await p
      .use("chromium", async ({ context }) => {
        const page = await context.newPage();
        await page.goto("chrome://crash").catch(() => {});
        await new Promise(() => {});
      })
      .catch((err: unknown) => err);
    expect((outcome as BrowserLostError).reason).toBe("crashed");
    await p.use("chromium", async () => {});
    expect(p.browserPids("chromium")[0]).not.toBe(pid);
  });

  it("ends a check over the memory cap and replaces its browser", async () => {
    const idle = await pool();
    const baseline = treeMemoryBytes(idle.browserPids("chromium")[0]!) / 1048576;
    await idle.close();
    const cap = Math.round(baseline + 200);
    const p = await pool({ memoryCapMb: cap, jsHeapMb: 4096, memorySampleMs: 100 });
    const [pid] = p.browserPids("chromium");
    const started = Date.now();
    const outcome = await p
      .use("chromium", async ({ context }) => {
        const page = await context.newPage();
        await page.setContent("<p>hungry</p>");
        // 25 MB more every 50 ms, kept alive; real pages do this with leaks and huge images.
        await page.evaluate(() => {
          const keep: number[][] = [];
          (globalThis as { keep?: unknown }).keep = keep;
          setInterval(() => keep.push(new Array(3_200_000).fill(keep.length)), 50);
        });
        await new Promise(() => {});
      })
      .catch((err: unknown) => err);
    expect(outcome).toBeInstanceOf(BrowserLostError);
    expect((outcome as BrowserLostError).reason).toBe("memory");
    expect((outcome as Error).message).toContain(`over the ${cap} MB cap`);
    expect(Date.now() - started).toBeLessThan(30_000);
    await until(() => p.browserPids("chromium").length === 1 && p.browserPids("chromium")[0] !== pid);
  });

  it("ends a check that holds its browser past the time cap", async () => {
    const p = await pool({ maxCheckMs: 400 });
    // From when the check has its browser: launching Chromium on a loaded machine takes seconds of its own.
    let started = 0;
    const outcome = await p
      .use("chromium", () => {
        started = Date.now();
        return new Promise(() => {});
      })
      .catch((err: unknown) => err);
    expect((outcome as BrowserLostError).reason).toBe("time");
    expect(started).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(p.stats()[0]!.recycled).toBe(1);
  });

  it("queues checks for a free browser and gives up after maxWaitMs as unavailable", async () => {
    const p = await pool();
    let release: (() => void) | undefined;
    const holding = p.use("chromium", () => new Promise<void>((r) => (release = r)));
    // The slot counts as busy before the check's function is called (its page opens first).
    await until(() => p.stats()[0]!.busy === 1 && release !== undefined);
    const waited = Date.now();
    await expect(p.use("chromium", async () => {}, { maxWaitMs: 300 })).rejects.toBeInstanceOf(CheckUnavailableError);
    expect(Date.now() - waited).toBeGreaterThanOrEqual(290);
    const queued = p.use("chromium", async () => "ran");
    release!();
    await holding;
    expect(await queued).toBe("ran");
  });

  it("rejects with CheckAbortedError when the caller aborts while waiting or running", async () => {
    const p = await pool();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    await expect(p.use("chromium", () => new Promise(() => {}), { signal: controller.signal })).rejects.toBeInstanceOf(CheckAbortedError);
    expect(await p.use("chromium", async () => 1)).toBe(1);
  });

  it("refuses an engine it does not offer as unavailable", async () => {
    const p = await pool();
    await expect(p.use("firefox", async () => {})).rejects.toThrow("no firefox browser here (BROWSERS offers chromium)");
  });
});

describe("engines", () => {
  it("maps BROWSERS to engines", () => {
    expect(browserEngines("none")).toEqual([]);
    expect(browserEngines("chromium")).toEqual(["chromium"]);
    expect(browserEngines("webkit")).toEqual(["webkit"]);
    expect(browserEngines("all")).toEqual(["chromium", "firefox", "webkit"]);
  });

  it("finds Debian's Chromium and refuses engines that are not installed, naming where it looked", async () => {
    expect(await requireEngine("chromium")).toBe("/usr/bin/chromium");
    for (const engine of ["firefox", "webkit"] as const) {
      const err = await requireEngine(engine).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EngineUnavailableError);
      expect((err as Error).message).toContain(`the ${engine} engine is not installed (no executable at `);
      expect((err as Error).message).toContain("ms-playwright");
    }
    await expect(BrowserPool.start({ engines: ["chromium", "firefox"], size: 1 })).rejects.toBeInstanceOf(EngineUnavailableError);
    await expect(BrowserPool.start({ engines: ["chromium"], size: 1, executablePaths: { chromium: "/nonexistent/chromium" } })).rejects.toThrow("no executable at /nonexistent/chromium");
  });
});
