/**
 * Watchpost on a three-server NATS cluster (docs/operations.md): NATS_URL lists the servers,
 * NATS_REPLICAS=3 keeps three copies of each stream, and losing any one server loses no job and no
 * result, with clients failing over to the servers left.
 */
import { afterAll, beforeAll, expect, it } from "bun:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { type Bus, createBus, type Delivery } from "../../core/bus/index.ts";
import { loadSchedulerConfig } from "../../scheduler/config.ts";
import { silentLogger } from "../../core/log.ts";
import { until } from "../support/scheduling.ts";
import { type NatsCluster, startNatsCluster } from "./servers.ts";

let cluster: NatsCluster;

/** JetStream API calls time out while the cluster elects new leaders after a server died: retried for up to 20 s. */
async function retrying<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= 40) throw err;
      await Bun.sleep(500);
    }
  }
}
beforeAll(async () => {
  cluster = await startNatsCluster(3);
}, 30_000);
afterAll(() => cluster?.destroy(), 30_000);

it(
  "keeps three copies of the streams and loses no job or result when a server of the cluster dies",
  async () => {
    // The way every role reads it: NATS_URL with every server, NATS_REPLICAS=3.
    const config = loadSchedulerConfig({ NATS_URL: cluster.url, NATS_REPLICAS: "3" });
    let producer: Bus | null = null;
    // JetStream answers once the cluster has elected its meta leader.
    await until(
      async () => {
        try {
          producer = await createBus({ natsUrl: config.NATS_URL, replicas: config.NATS_REPLICAS, log: silentLogger });
          return true;
        } catch {
          return false;
        }
      },
      20_000,
      "JetStream on the cluster",
    );
    const consumer = await createBus({ natsUrl: config.NATS_URL, replicas: config.NATS_REPLICAS, log: silentLogger });
    try {
      const nc = await connect({ servers: cluster.urls });
      const jsm = await jetstreamManager(nc);
      for (const name of ["JOBS", "RESULTS"]) expect((await jsm.streams.info(name)).config.num_replicas).toBe(3);
      await nc.close();

      const seen = new Set<string>();
      const handle = await consumer.consumeResults<{ id: string }>("cluster-test", { maxWaitMs: 20 }, (batch: Delivery<{ id: string }>[]) => {
        for (const d of batch) seen.add(d.data.id);
      });
      const publish = async (from: number, to: number) => {
        for (let i = from; i < to; i++) {
          for (let attempt = 0; ; attempt++) {
            try {
              await producer!.publishResult(`results.org_c.mon_c`, { id: `r${i}` });
              await producer!.publishJob("jobs.region.cluster", { id: `j${i}` });
              break;
            } catch (err) {
              // While the streams elect new leaders (a few seconds) a publish fails; the retry lands once they have (de-duplicated by id).
              if (attempt > 150) throw err;
              await Bun.sleep(200);
            }
          }
        }
      };
      await publish(0, 50);
      await until(() => seen.size === 50, 10_000, "the first 50 results");
      // Any one server dies; the clients connected to it move to the others.
      await cluster.kill(0);
      await publish(50, 100);
      await until(() => seen.size === 100, 30_000, "every result after the server died");
      expect(await retrying(() => consumer.pendingJobs("jobs.region.cluster"))).toBe(100);
      const ids = new Set<string>();
      await until(
        async () => {
          for (const d of await retrying(() => consumer.fetchJobs<{ id: string }>("jobs.region.cluster", 100, 1000))) ids.add(d.data.id);
          return ids.size === 100;
        },
        30_000,
        "every job after the server died",
      );
      await handle.stop();
      console.log(`nats cluster: 100 jobs and 100 results on 3 servers with replicas 3, one server killed mid-run, none lost`);
    } finally {
      await consumer.close();
      await (producer as Bus | null)?.close();
    }
  },
  { timeout: 90_000 },
);
