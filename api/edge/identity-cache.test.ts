import { describe, expect, it } from "bun:test";
import type { Identity } from "../../domain/access/identity.ts";
import type { Sql } from "../../db/client.ts";
import { silentLogger } from "../../core/log.ts";
import { IdentityCache } from "./identity-cache.ts";

const identity: Identity = { kind: "api_key", keyId: "key_1", userId: "usr_1", orgId: "org_1", roleId: "admin", rolePermissions: ["org:admin"], scopes: ["org:admin"] };

/** A cache listening on a fake connection whose notifications the test sends by hand. */
async function listeningCache() {
  let notify = () => {};
  const sql = {
    listen: async (_channel: string, onNotify: () => void, onListen: () => void) => {
      notify = onNotify;
      onListen();
      return { unlisten: async () => {} };
    },
  } as unknown as Sql;
  const cache = new IdentityCache();
  await cache.listen(sql, silentLogger);
  return { cache, notify: () => notify() };
}

describe("IdentityCache", () => {
  it("caches nothing until it listens", () => {
    const cache = new IdentityCache();
    cache.set("k", identity);
    expect(cache.get("k")).toBeUndefined();
  });

  it("forgets everything when an identity change is notified", async () => {
    const { cache, notify } = await listeningCache();
    cache.set("k", identity);
    expect(cache.get("k")).toEqual(identity);
    notify();
    expect(cache.get("k")).toBeUndefined();
  });

  it("drops a resolution that started before an invalidation instead of storing stale rights", async () => {
    const { cache, notify } = await listeningCache();
    const mark = cache.mark(); // the request reads the database…
    notify(); // …while the role changes and the change is notified…
    cache.set("k", identity, mark); // …so what it read must not be kept.
    expect(cache.get("k")).toBeUndefined();
    cache.set("k", identity, cache.mark());
    expect(cache.get("k")).toEqual(identity);
  });
});
