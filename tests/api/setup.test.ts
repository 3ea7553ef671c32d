import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createSql, type Sql } from "../../db/client.ts";
import { startTestApi, type TestApi } from "../support/api.ts";
import { createTestDatabase } from "../support/db.ts";

// One fresh database for this file: the first-run setup exists only while no organisation does.
let api: TestApi;
let locker: Sql;
beforeAll(async () => {
  const db = await createTestDatabase();
  api = await startTestApi({}, db);
  locker = createSql(db.url, { max: 1 });
});
afterAll(async () => {
  await locker.end();
  await api.stop();
});

/** Sessions of this database waiting on a lock (a row, a table or an advisory lock). */
const waitingOnLocks = async (on: Sql) => {
  await on`select pg_stat_clear_snapshot()`; // inside a transaction the statistics views are otherwise frozen
  return (await on`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)[0]!.n as number;
};

const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  fetch(`${api.url}/api/v1/setup`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
const needed = async () => ((await (await fetch(`${api.url}/api/v1/setup`)).json()) as { needed: boolean }).needed;
const owner = (n: number) => ({ email: `owner${n}@example.test`, password: "a long enough password", name: `Owner ${n}`, org_name: `Org ${n}` });

describe("first-run setup", () => {
  it("is refused from another site's page, and validates fields by name", async () => {
    expect(await needed()).toBe(true);
    const cross = await post(owner(0), { origin: "https://evil.example", "sec-fetch-site": "cross-site" });
    expect(cross.status).toBe(403);
    expect(((await cross.json()) as any).details.reason).toBe("cross_site");
    const bad = await post({ ...owner(0), password: "short" });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain("password");
    expect(await needed()).toBe(true);
  });

  it("lets exactly one of concurrent setups create the owner, signs them in, then is gone for good", async () => {
    // Every attempt is held just before it writes the organisation (a share lock on the table blocks
    // inserts, not reads), so all of them have seen "no organisation yet" when the gate opens.
    const tries = 8;
    let pending: Promise<Response[]> = Promise.resolve([]);
    await locker.begin(async (tx) => {
      await tx`lock table organisations in share mode`;
      pending = Promise.all(Array.from({ length: tries }, (_, i) => post(owner(i + 1))));
      for (let waited = 0; (await waitingOnLocks(tx as unknown as Sql)) < tries; waited += 50) {
        if (waited > 15_000) throw new Error("the setup attempts never reached the organisation insert");
        await Bun.sleep(50);
      }
    });
    const answers = await pending;
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([201, ...Array(tries - 1).fill(409)]);
    const won = answers.find((r) => r.status === 201)!;
    const body = (await won.json()) as any;
    expect(body.org_id).toStartWith("org_");
    const cookies = won.headers.getSetCookie();
    expect(cookies.find((c) => c.startsWith("wp_session="))).toContain("HttpOnly");
    const cookie = cookies.map((c) => c.split(";")[0]).join("; ");
    const me = await fetch(`${api.url}/api/v1/user`, { headers: { cookie } });
    expect(me.status).toBe(200);
    const orgs = (await (await fetch(`${api.url}/api/v1/orgs`, { headers: { cookie } })).json()) as any;
    expect(orgs.data.map((o: any) => [o.id, o.role])).toEqual([[body.org_id, "owner"]]);
    const lost = (await answers.find((r) => r.status === 409)!.json()) as any;
    expect(lost.details.reason).toBe("already_set_up");

    expect(await needed()).toBe(false);
    const again = await post(owner(9));
    expect(again.status).toBe(409);
    const [{ count }] = await api.sql`select count(*)::int as count from organisations`;
    expect(count).toBe(1);
  });
});
