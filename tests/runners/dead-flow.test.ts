/**
 * A runner whose HTTPS connection to the API a firewall or NAT forgot (a runner in a customer's network: a NAT
 * gateway failed over, a VPN came back): nothing comes back and nothing is closed. Each call used to wait for an
 * answer until TCP or the API's idle timeout gave up, minutes in which the runner claimed nothing and sent no
 * heartbeat, so the API took it for offline and recorded its jobs `unavailable`. Every call now has a deadline:
 * its long-poll wait plus the client's call timeout; the runner's next call goes over a new connection.
 */
import { afterAll, beforeAll, expect, it } from "bun:test";
import { silentLogger } from "../../core/log.ts";
import { ApiClient, ApiError } from "../../runner/api-client.ts";
import type { ClaimResponse, HeartbeatResponse } from "../../schemas/runner-protocol.ts";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.ts";
import { orgWithRunner, startTlsApi, type TlsApi } from "./support.ts";

let api: TlsApi;
let proxy: TcpProxy;

beforeAll(async () => {
  api = await startTlsApi();
  proxy = await startTcpProxy(Number(new URL(api.url).port));
}, 30_000);

afterAll(async () => {
  await proxy?.stop();
  await api?.stop();
});

const report = { version: "test", name: "t", region: "lab", capabilities: { browsers: [], concurrency: 5 }, heartbeat_interval_ms: 5000 };

/** How long `call` took to fail with the client's own deadline (API_TIMEOUT). */
async function timesOut(call: () => Promise<unknown>): Promise<number> {
  const began = Date.now();
  const err = await call().then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).code).toBe("API_TIMEOUT");
  return Date.now() - began;
}

it("gives up a call on a forgotten flow at its deadline, and the next call goes through on a new connection", async () => {
  const { runner } = await orgWithRunner(api);
  const wire = Object.assign((input: RequestInfo | URL, init?: RequestInit) => fetch(input, { ...init, tls: { ca: api.caPem } } as RequestInit), { preconnect: fetch.preconnect });
  const client = new ApiClient({ baseUrl: `https://127.0.0.1:${proxy.port}`, token: runner.token, encrypted: true, log: silentLogger, fetch: wire, callTimeoutMs: 2000 });
  await client.handshake(report);
  expect((await client.call<HeartbeatResponse>("/heartbeat", { ...report, in_flight: [] })).lost).toEqual([]);

  // A claim: its long-poll wait, then the call timeout.
  await proxy.cut("forget");
  const claimMs = await timesOut(() => client.call<ClaimResponse>("/jobs/claim", { max: 1, wait_ms: 1000 }));
  expect(claimMs).toBeGreaterThanOrEqual(2900);
  expect(claimMs).toBeLessThan(8000);
  // The next call goes over a new connection.
  expect((await client.call<ClaimResponse>("/jobs/claim", { max: 1, wait_ms: 0 })).jobs).toEqual([]);

  // Any other call: the call timeout.
  await proxy.cut("forget");
  const beatMs = await timesOut(() => client.call("/heartbeat", { ...report, in_flight: [] }));
  expect(beatMs).toBeGreaterThanOrEqual(1900);
  expect(beatMs).toBeLessThan(7000);
  expect((await client.call<HeartbeatResponse>("/heartbeat", { ...report, in_flight: [] })).lost).toEqual([]);
}, 60_000);
