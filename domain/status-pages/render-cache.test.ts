import { describe, expect, it } from "bun:test";
import { RenderCache } from "./render-cache.ts";

describe("RenderCache", () => {
  it("renders once while nothing changes, and again after the organisation's version moves", async () => {
    const cache = new RenderCache();
    let renders = 0;
    const render = async () => ++renders;
    expect(await cache.get("k", "org_a", render)).toBe(1);
    expect(await cache.get("k", "org_a", render)).toBe(1);
    cache.invalidateOrg("org_b");
    expect(await cache.get("k", "org_a", render)).toBe(1);
    cache.invalidateOrg("org_a");
    expect(await cache.get("k", "org_a", render)).toBe(2);
  });

  it("does not keep a render that a change overtook", async () => {
    const cache = new RenderCache();
    let renders = 0;
    const slow = async () => {
      renders++;
      cache.invalidateOrg("org_a"); // a change lands while this render reads the database
      return renders;
    };
    await cache.get("k", "org_a", slow);
    await cache.get("k", "org_a", slow);
    expect(renders).toBe(2);
  });

  it("shares one render between concurrent callers", async () => {
    const cache = new RenderCache();
    let renders = 0;
    const render = async () => (await Bun.sleep(5), ++renders);
    const all = await Promise.all([1, 2, 3].map(() => cache.get("k", "org", render)));
    expect(all).toEqual([1, 1, 1]);
  });

  it("expires entries after the fallback TTL when not listening", async () => {
    let now = 0;
    const cache = new RenderCache(() => now);
    let renders = 0;
    await cache.get("k", "org", async () => ++renders);
    now += 5_000;
    await cache.get("k", "org", async () => ++renders);
    expect(renders).toBe(2);
  });
});
