/**
 * The runner protocol while NATS is down: every call that needs the bus (a claim, a heartbeat extending a claim,
 * results) answers 503 SERVICE_UNAVAILABLE with the error body and Retry-After, never 500, and works again once NATS
 * is back: the claim taken before the outage is reported and its result published.
 */
import { afterAll, beforeAll, expect, it } from "bun:test";
import { connectNatsBus } from "../../core/bus/index.ts";
import { silentLogger } from "../../core/log.ts";
import { ApiClient, ApiError } from "../../runner/api-client.ts";
import type { ClaimResponse, HeartbeatResponse } from "../../schemas/runner-protocol.ts";
import { type PrivateNats, startPrivateNats } from "../faults/servers.ts";
import { collectResults, orgWithRunner, publishHttpJob, startTarget, startTlsApi, type TlsApi } from "./support.ts";

let nats: PrivateNats;
let api: TlsApi;
let target: ReturnType<typeof startTarget>;

beforeAll(async () => {
  nats = await startPrivateNats();
  api = await startTlsApi({ bus: await connectNatsBus({ url: nats.url }) });
  await api.bus.ensureTopology();
  target = startTarget();
}, 30_000);

afterAll(async () => {
  await target?.stop();
  await api?.stop();
  await nats?.destroy();
});

const report = { version: "test", name: "t", region: "lab", capabilities: { browsers: [], concurrency: 5 }, heartbeat_interval_ms: 5000 };

/** What a call put on the wire last: its status, Retry-After and body. */
interface Answer {
  status: number;
  retryAfter: string | null;
  body: unknown;
}

/** Each call's rejection (or null), with the answer the API gave it. */
async function attempt(run: () => Promise<unknown>, last: () => Answer): Promise<{ err: unknown; answer: Answer }> {
  try {
    await run();
    return { err: null, answer: last() };
  } catch (err) {
    return { err, answer: last() };
  }
}

it("answers a runner's claim, heartbeat and results 503 with the error body while NATS is down, and serves them once it is back", async () => {
  const { org, runner } = await orgWithRunner(api);
  let last: Answer = { status: 0, retryAfter: null, body: null };
  const wire: typeof fetch = Object.assign(
    async (input: RequestInfo | URL, init?: RequestInit) => {
      const res = await fetch(input, { ...init, tls: { ca: api.caPem } } as RequestInit);
      const text = await res.clone().text();
      last = { status: res.status, retryAfter: res.headers.get("retry-after"), body: text ? JSON.parse(text) : null };
      return res;
    },
    { preconnect: fetch.preconnect },
  );
  const client = new ApiClient({ baseUrl: api.url, token: runner.token, encrypted: true, log: silentLogger, fetch: wire });
  await client.handshake(report);

  // A job claimed before the outage, to extend and report during it.
  const job = await publishHttpJob(api.bus, org.org_id, runner.id, "mon_outage", `${target.url}/ok`);
  const claimed = await client.call<ClaimResponse>("/jobs/claim", { max: 1, wait_ms: 2000 });
  expect(claimed.jobs.map((j) => j.job.id)).toEqual([job.id]);
  const claim = claimed.jobs[0]!.claim;
  const result = { claim, status: "up", checked_at: Date.now(), duration_ms: 3, error: null, data: {} };

  const back = nats.restart(15_000);
  await Bun.sleep(500);
  const unavailable = { error: "The message bus is unavailable; retry shortly", code: "SERVICE_UNAVAILABLE", details: { retryAfterSeconds: 5 } };
  for (const [path, body] of [
    ["/jobs/claim", { max: 1, wait_ms: 1000 }],
    ["/heartbeat", { ...report, in_flight: [claim] }],
    ["/results", { results: [result] }],
  ] as const) {
    const { err, answer } = await attempt(() => client.call(path, body), () => last);
    expect(err, path).toBeInstanceOf(ApiError);
    expect({ path, status: answer.status, retryAfter: answer.retryAfter, body: answer.body }).toEqual({ path, status: 503, retryAfter: "5", body: unavailable });
  }
  await back;

  // Back (once the API's client has reconnected): the claim is still held (the heartbeat extends it) and its result
  // goes through.
  const deadline = Date.now() + 20_000;
  let beat: HeartbeatResponse | null = null;
  while (!beat) {
    beat = await client.call<HeartbeatResponse>("/heartbeat", { ...report, in_flight: [claim] }).catch((err) => {
      if (!(err instanceof ApiError && err.status === 503) || Date.now() > deadline) throw err;
      return Bun.sleep(250).then(() => null);
    });
  }
  expect(beat.lost).toEqual([]);
  const results = await collectResults(api.bus, org.org_id);
  expect(await client.call("/results", { results: [result] })).toEqual({ accepted: 1 });
  expect(await results.waitFor((r) => r.id === job.id)).toMatchObject({ status: "up", location: runner.id });
  await results.stop();
}, 90_000);
