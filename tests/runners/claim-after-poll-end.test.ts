/**
 * A claim long-poll that ends early (its session ended here or on another API process, its request aborted) stops its
 * bus fetch too: the job published next goes to the runner's next claim at once, on its first delivery. Before, the
 * fetch went on waiting for the poll's whole wait_ms, took that job and only then handed it back, spending one of the
 * job's deliveries: with one delivery allowed here, such a job was given up and the next claim never got it.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createMemoryBus } from "../../core/bus/index.ts";
import { endRunnerSession } from "../../db/queries/runners.ts";
import type { ClaimResponse } from "../../schemas/runner-protocol.ts";
import { rawSession } from "./raw-session.ts";
import { orgWithRunner, publishHttpJob, startTlsApi, type TlsApi } from "./support.ts";

let api: TlsApi;
beforeAll(async () => {
  api = await startTlsApi({ bus: createMemoryBus({ jobs: { ackWaitMs: 60_000, maxDeliveries: 1 } }) });
}, 30_000);
afterAll(async () => {
  await api?.stop();
});

type Session = Awaited<ReturnType<typeof rawSession>>;
interface Poll {
  runnerId: string;
  session: Session;
  request: AbortController;
}

const endings: { how: string; end(p: Poll): Promise<unknown> }[] = [
  { how: "the runner ended its session", end: (p) => p.session.call("/session/end", { reason: "stopping", claims: [] }) },
  { how: "another API process ended the session", end: (p) => endRunnerSession(api.db.sql, p.runnerId, p.session.id) },
  { how: "the runner's request was aborted", end: async (p) => p.request.abort() },
];

describe("the bus fetch of a claim long-poll that ended early", () => {
  it.each(endings)("ends with it: the job published next reaches a new claim at once, after $how", async ({ end }) => {
    const { org, runner } = await orgWithRunner(api);
    const session = await rawSession(api, runner.token);
    const request = new AbortController();
    const poll = session.call<ClaimResponse>("/jobs/claim", { max: 5, wait_ms: 20_000 }, request.signal).catch(() => null);
    await Bun.sleep(300);
    const endedAt = Date.now();
    await end({ runnerId: runner.id, session, request });
    expect((await poll)?.jobs ?? []).toEqual([]);
    expect(Date.now() - endedAt).toBeLessThan(3000);

    const job = await publishHttpJob(api.bus, org.org_id, runner.id, "mon_next", "http://127.0.0.1:9/");
    const next = await rawSession(api, runner.token);
    const claimedAt = Date.now();
    const claimed = await next.call<ClaimResponse>("/jobs/claim", { max: 5, wait_ms: 5000 });
    expect(claimed.jobs.map((j) => j.job.id)).toEqual([job.id]);
    expect(Date.now() - claimedAt).toBeLessThan(2000);
  }, 30_000);
});
