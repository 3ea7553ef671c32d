/**
 * A NATS connection whose flow a firewall, a NAT or a cut link forgot: nothing comes back and nothing is closed, so
 * the client learns it only from its own pings. The bus kept the client's default (a ping every 2 minutes, two
 * unanswered): every publish failed for 4 to 6 minutes while the server was up. Now it pings every 5 s
 * (core/bus/nats-bus.ts) and connects again 10 to 15 s after the cut.
 *
 * Not covered, as the client cannot change it: the server keeps the dead connection until its writes to it stall
 * for the write deadline (no acknowledgement comes back), and meanwhile hands it its share of each queue group's
 * requests, such as a run-now asked of the region's workers (docs/operations.md).
 */
import { afterAll, beforeAll, expect, it } from "bun:test";
import { connectNatsBus } from "../../core/bus/nats-bus.ts";
import type { Bus } from "../../core/bus/types.ts";
import { until } from "../support/scheduling.ts";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.ts";
import { type PrivateNats, startPrivateNats } from "./servers.ts";

let nats: PrivateNats;
let proxy: TcpProxy;
/** The worker's side: its connection goes through the proxy. */
let worker: Bus;
/** The API's side, connected directly. */
let api: Bus;

beforeAll(async () => {
  nats = await startPrivateNats();
  proxy = await startTcpProxy(Number(new URL(nats.url).port));
  [worker, api] = await Promise.all([connectNatsBus({ url: `nats://127.0.0.1:${proxy.port}` }), connectNatsBus({ url: nats.url })]);
  await api.ensureTopology({ jobSubjects: ["jobs.region.eu"] });
}, 30_000);

afterAll(async () => {
  await Promise.all([worker?.close(), api?.close()]);
  await proxy?.stop();
  await nats?.destroy();
}, 30_000);

it("after a forgotten flow the bus connects again within seconds: its publishes and its job loop work again", async () => {
  const seen: string[] = [];
  const loop = await worker.consumeJobs<{ id: string }>("jobs.region.eu", { maxInFlight: 4 }, (d) => {
    seen.push(d.data.id);
  });
  try {
    await api.publishJob("jobs.region.eu", { id: "before" });
    await until(() => seen.includes("before"), 5000, "the job published before the cut taken");

    await proxy.cut("forget");
    const cutAt = Date.now();
    const since = () => Date.now() - cutAt;

    // The worker's own publishes go through again once its pings gave the old connection up (a ping every 5 s, two
    // unanswered: 10 to 15 s).
    let published: number | null = null;
    for (let i = 0; published === null && since() < 60_000; i++) {
      try {
        await worker.publishJob("jobs.region.eu", { id: `after-${i}` });
        published = since();
      } catch {
        await Bun.sleep(250);
      }
    }
    // Its job loop takes jobs again over the new connection.
    await api.publishJob("jobs.region.eu", { id: "for-the-new-connection" });
    await until(() => seen.includes("for-the-new-connection"), 10_000, "a job taken over the new connection");

    console.log(`nats dead flow: the worker published again ${published} ms after the cut`);
    expect(published).not.toBeNull();
    expect(published!).toBeLessThan(20_000);
  } finally {
    await loop.stop();
  }
}, 120_000);
