import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { hashToken } from "../../core/crypto/secrets.ts";
import { ReplayWindow } from "../../core/crypto/session-seal.ts";
import { acceptInboundSeq, insertRunner, insertRunnerSession } from "../../db/queries/runners.ts";
import { makeOrg } from "../support/api.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

async function session(): Promise<string> {
  const org = await makeOrg(db.sql, "pro");
  const id = `run_${Math.random().toString(36).slice(2)}`;
  await insertRunner(db.sql, org.org_id, { id, name: "r", locationLabel: null, tokenHash: hashToken(id) });
  const sid = `rsn_${id}`;
  await insertRunnerSession(db.sql, { id: sid, runnerId: id, orgId: org.org_id, encrypted: true, keyEnc: null, ttlSeconds: 60 });
  return sid;
}

describe("acceptInboundSeq (the API's replay window in SQL)", () => {
  it("agrees with the in-memory window on a shuffled sequence with replays, edges and jumps", async () => {
    const sid = await session();
    const mem = new ReplayWindow();
    // Edges: exactly 63 and 64 below the highest (bit 63 is the sign bit of bigint), a jump of 64+, replays.
    const seqs = [1, 3, 2, 3, 70, 7, 6, 7, 8, 5, 134, 71, 70, 200, 137, 136, 200, 199, 1000, 937, 936, 937, 0, -1];
    for (const seq of seqs) expect(`${seq}:${await acceptInboundSeq(db.sql, sid, seq)}`).toBe(`${seq}:${mem.accept(seq)}`);
  });

  it("lets exactly one of many concurrent uses of a seq through", async () => {
    const sid = await session();
    const answers = await Promise.all(Array.from({ length: 10 }, () => acceptInboundSeq(db.sql, sid, 5)));
    expect(answers.filter(Boolean)).toHaveLength(1);
  });
});
