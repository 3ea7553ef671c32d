import { describe, expect, it } from "bun:test";
import { connect } from "@nats-io/transport-node";
import { AckPolicy, jetstreamManager, RetentionPolicy } from "@nats-io/jetstream";
import { runBusSuite } from "./bus.case.ts";
import { connectNatsBus } from "./nats-bus.ts";
import { jobConsumerName } from "./subjects.ts";

const url = "nats://127.0.0.1:4222";

runBusSuite("nats bus", (opts) => connectNatsBus({ ...opts, url }), {
  async cleanup(prefixes) {
    const nc = await connect({ servers: url });
    const jsm = await jetstreamManager(nc);
    const names = prefixes.flatMap((p) => [`${p}JOBS`, `${p}RESULTS`]);
    await Promise.all(names.map((n) => jsm.streams.delete(n).catch(() => false)));
    await nc.close();
  },
});

describe("nats bus stream definitions", () => {
  it("creates JOBS as a work queue and RESULTS as a log, each with a de-duplication window, and job consumers with the ack deadline and max deliveries", async () => {
    const prefix = `tdef${Date.now().toString(36)}_`;
    const bus = await connectNatsBus({ url, prefix, jobs: { ackWaitMs: 7000, maxDeliveries: 4, duplicateWindowMs: 90_000 } });
    const nc = await connect({ servers: url });
    try {
      await bus.ensureTopology({ jobSubjects: ["jobs.region.eu"], resultDurables: [{ name: "ingest" }] });
      // Idempotent: a second start (or another process) changes nothing.
      await bus.ensureTopology({ jobSubjects: ["jobs.region.eu"], resultDurables: [{ name: "ingest" }] });
      const jsm = await jetstreamManager(nc);
      const jobs = (await jsm.streams.info(`${prefix}JOBS`)).config;
      expect(jobs).toMatchObject({ subjects: [`${prefix}jobs.>`], retention: RetentionPolicy.Workqueue, duplicate_window: 90_000 * 1_000_000 });
      const results = (await jsm.streams.info(`${prefix}RESULTS`)).config;
      expect(results).toMatchObject({ subjects: [`${prefix}results.>`], retention: RetentionPolicy.Limits });
      expect(results.duplicate_window).toBeGreaterThan(0);
      const consumer = (await jsm.consumers.info(`${prefix}JOBS`, jobConsumerName("jobs.region.eu"))).config;
      expect(consumer).toMatchObject({ ack_policy: AckPolicy.Explicit, ack_wait: 7000 * 1_000_000, max_deliver: 4, filter_subject: `${prefix}jobs.region.eu` });
      const ingest = (await jsm.consumers.info(`${prefix}RESULTS`, "ingest")).config;
      expect(ingest).toMatchObject({ durable_name: "ingest", ack_policy: AckPolicy.Explicit, filter_subject: `${prefix}results.>` });
      await Promise.all([jsm.streams.delete(`${prefix}JOBS`), jsm.streams.delete(`${prefix}RESULTS`)]);
    } finally {
      await bus.close();
      await nc.close();
    }
  });
});
