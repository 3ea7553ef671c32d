import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { randomBytes } from "node:crypto";
import { newId } from "../core/ids.ts";
import { silentLogger } from "../core/log.ts";
import { BlindTime } from "../core/process/blind-time.ts";
import { makeOrg } from "../tests/support/api.ts";
import { createTestDatabase, type TestDatabase } from "../tests/support/db.ts";
import { startPlacement } from "./placement.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
}, 60_000);
afterAll(async () => {
  await db.drop();
}, 60_000);

async function runnerSeen(orgId: string, secondsAgo: number | null): Promise<string> {
  const id = newId("run");
  await db.sql`
    insert into runners (id, org_id, name, token_hash, heartbeat_interval_ms, last_seen_at)
    values (${id}, ${orgId}, ${id}, ${randomBytes(32)}, 30000,
            ${secondsAgo === null ? null : db.sql`now() - make_interval(secs => ${secondsAgo})`})`;
  return id;
}

describe("placement of runner jobs", () => {
  it("takes a runner silent since before the all-in-one started as online until it has seen a whole window of silence", async () => {
    const org = await makeOrg(db.sql, "business");
    // Heartbeats every 30 s: offline after 90 s of silence. The all-in-one was down for two minutes.
    const stalled = await runnerSeen(org.org_id, 120);
    const live = await runnerSeen(org.org_id, 1);
    const never = await runnerSeen(org.org_id, null);
    let now = 0;
    const placement = await startPlacement(db.sql, silentLogger, { refreshMs: 3_600_000, blind: new BlindTime({ clock: () => now, blindBeforeStart: true }) });
    try {
      expect([placement.runnerOnline(stalled), placement.runnerOnline(live), placement.runnerOnline(never)]).toEqual([true, true, false]);
      now += 89_000;
      await placement.refresh();
      expect(placement.runnerOnline(stalled)).toBe(true);
      now += 2_000;
      await placement.refresh();
      expect([placement.runnerOnline(stalled), placement.runnerOnline(live)]).toEqual([false, true]);
    } finally {
      placement.stop();
    }
  });

  it("judges by the database alone where the process's start hid nothing (a scheduler role on its own)", async () => {
    const org = await makeOrg(db.sql, "business");
    const stalled = await runnerSeen(org.org_id, 120);
    const placement = await startPlacement(db.sql, silentLogger, { refreshMs: 3_600_000 });
    try {
      expect(placement.runnerOnline(stalled)).toBe(false);
    } finally {
      placement.stop();
    }
  });
});
