import { afterAll, afterEach, describe, expect, it } from "bun:test";
import { NoResponderError, RemoteError, RequestTimeoutError, type Bus, type BusOptions, type Delivery } from "./types.ts";

/** Opens a client on the namespace `opts.prefix`; two calls with one prefix model two processes. */
export type MakeBus = (opts: BusOptions & { prefix: string }) => Promise<Bus>;

export interface SuiteOptions {
  /** Removes what the run left behind (NATS streams) for these prefixes. */
  cleanup?: (prefixes: string[]) => Promise<void>;
}

interface Job {
  id: string;
  n?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await sleep(10);
  }
}

/** The contract every Bus implementation passes. */
export function runBusSuite(name: string, makeBus: MakeBus, opts: SuiteOptions = {}): void {
  const runId = `t${Math.floor(Math.random() * 1e6)}`;
  const prefixes: string[] = [];
  let open: Bus[] = [];

  /** A fresh namespace and `n` clients on it, topology in place. */
  async function world(n = 1, { ensure = true } = {}): Promise<Bus[]> {
    const prefix = `${runId}_${prefixes.length}_`;
    prefixes.push(prefix);
    const buses = await Promise.all(Array.from({ length: n }, () => makeBus({ prefix })));
    open.push(...buses);
    if (ensure) await Promise.all(buses.map((b) => b.ensureTopology()));
    return buses;
  }

  describe(name, () => {
    afterEach(async () => {
      await Promise.all(open.map((b) => b.close()));
      open = [];
    });
    afterAll(async () => {
      await opts.cleanup?.(prefixes);
    });

    it("de-duplicates a job published twice with the same id", async () => {
      const [bus] = await world();
      const first = await bus.publishJob("jobs.region.eu", { id: "job-1" });
      const again = await bus.publishJob("jobs.region.eu", { id: "job-1", n: 2 });
      expect(first.duplicate).toBe(false);
      expect(again).toEqual({ seq: first.seq, duplicate: true });
      expect(await bus.pendingJobs("jobs.region.eu")).toBe(1);
      const got = await bus.fetchJobs<Job>("jobs.region.eu", 10, 1000);
      expect(got.map((d) => d.data)).toEqual([{ id: "job-1" }]);
      expect(got[0].subject).toBe("jobs.region.eu");
      expect(got[0].deliveryCount).toBe(1);
    });

    it("hands each job to exactly one of several consuming clients", async () => {
      const [a, b] = await world(2);
      const seen: Record<string, string[]> = { a: [], b: [] };
      for (const [who, bus] of [["a", a], ["b", b]] as const) {
        await bus.consumeJobs<Job>("jobs.region.eu", { maxInFlight: 2 }, async (d) => {
          seen[who].push(d.data.id);
          await sleep(15);
        });
      }
      await Promise.all(Array.from({ length: 20 }, (_, i) => a.publishJob("jobs.region.eu", { id: `j${i}` })));
      await until(() => seen.a.length + seen.b.length >= 20);
      await sleep(100);
      const all = [...seen.a, ...seen.b];
      expect(new Set(all).size).toBe(20);
      expect(all.length).toBe(20);
      expect(seen.a.length).toBeGreaterThan(0);
      expect(seen.b.length).toBeGreaterThan(0);
      await until(async () => (await a.pendingJobs("jobs.region.eu")) === 0);
    });

    it("returns a long poll as soon as a job arrives, with what is ready up to max", async () => {
      const [bus] = await world();
      const started = Date.now();
      const poll = bus.fetchJobs<Job>("jobs.runner.r1", 5, 5000);
      await sleep(200);
      await bus.publishJob("jobs.runner.r1", { id: "late" });
      expect((await poll).map((d) => d.data.id)).toEqual(["late"]);
      expect(Date.now() - started).toBeLessThan(2000);
      await Promise.all(["x", "y", "z"].map((id) => bus.publishJob("jobs.runner.r1", { id })));
      expect((await bus.fetchJobs<Job>("jobs.runner.r1", 2, 5000)).length).toBe(2);
    });

    it("ends a long poll at once when its signal aborts, and a job published next goes to the next fetch on its first delivery", async () => {
      const [bus] = await world();
      const abort = new AbortController();
      const started = Date.now();
      const poll = bus.fetchJobs<Job>("jobs.runner.r1", 5, 10_000, { signal: abort.signal });
      await sleep(300);
      abort.abort();
      expect(await poll).toEqual([]);
      expect(Date.now() - started).toBeLessThan(1500);
      await bus.publishJob("jobs.runner.r1", { id: "next" });
      const fetchedAt = Date.now();
      const [d] = await bus.fetchJobs<Job>("jobs.runner.r1", 5, 5000);
      expect(d?.data.id).toBe("next");
      // The aborted poll never took it: taken and handed back, it would be on its second delivery.
      expect(d?.deliveryCount).toBe(1);
      expect(Date.now() - fetchedAt).toBeLessThan(1000);
    });

    it("takes no job on a signal already aborted", async () => {
      const [bus] = await world();
      await bus.publishJob("jobs.runner.r1", { id: "waiting" });
      const started = Date.now();
      expect(await bus.fetchJobs("jobs.runner.r1", 5, 5000, { signal: AbortSignal.abort() })).toEqual([]);
      expect(Date.now() - started).toBeLessThan(1000);
      const [d] = await bus.fetchJobs<Job>("jobs.runner.r1", 5, 1000);
      expect(d?.data.id).toBe("waiting");
      expect(d?.deliveryCount).toBe(1);
    });

    it("redelivers a job not acked within its ack deadline", async () => {
      const [bus] = await world();
      await bus.publishJob("jobs.region.eu", { id: "slow" });
      const [first] = await bus.fetchJobs<Job>("jobs.region.eu", 1, 1000, { ackWaitMs: 500 });
      const claimedAt = Date.now();
      const [again] = await bus.fetchJobs<Job>("jobs.region.eu", 1, 3000, { ackWaitMs: 500 });
      expect(again.data.id).toBe(first.data.id);
      expect(again.deliveryCount).toBe(2);
      expect(Date.now() - claimedAt).toBeGreaterThanOrEqual(400);
      again.ack();
    });

    it("settles a job by its token from another client", async () => {
      const [api1, api2] = await world(2);
      await api1.publishJob("jobs.runner.r1", { id: "a" });
      await api1.publishJob("jobs.runner.r1", { id: "b" });
      const [a, b] = await api1.fetchJobs<Job>("jobs.runner.r1", 2, 1000, { ackWaitMs: 500 });
      expect(await api2.ackJob(a.token)).toBe(true);
      expect(await api2.termJob(b.token)).toBe(true);
      expect(await api2.pendingJobs("jobs.runner.r1")).toBe(0);
      expect(await api2.fetchJobs("jobs.runner.r1", 5, 1000, { ackWaitMs: 500 })).toEqual([]);
      // Awaited, not `expect(...).rejects`: Bun's matcher waits on the promise without delivering MessagePort
      // messages, so the port bus's reply never arrived (a hang of the test, not of the bus).
      expect(String(await api2.ackJob("$JS.ACK.OTHER.c.1.1.1.1.0").catch((e) => e))).toMatch(/not a job token/);
    });

    it("extends a job's deadline by token and naks it with a delay", async () => {
      const [api1, api2] = await world(2);
      const opts = { ackWaitMs: 800 };
      await api1.publishJob("jobs.runner.r1", { id: "long" });
      const t0 = Date.now();
      const [d] = await api1.fetchJobs<Job>("jobs.runner.r1", 1, 1000, opts);
      await sleep(500);
      expect(await api2.extendJob(d.token)).toBe(true);
      const [again] = await api2.fetchJobs<Job>("jobs.runner.r1", 1, 2000, opts);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1200);
      expect(again.deliveryCount).toBe(2);
      const nakAt = Date.now();
      expect(await api1.nakJob(again.token, 600)).toBe(true);
      const [third] = await api2.fetchJobs<Job>("jobs.runner.r1", 1, 2000, opts);
      expect(Date.now() - nakAt).toBeGreaterThanOrEqual(500);
      expect(third.deliveryCount).toBe(3);
      third.ack();
    });

    it("gives a job up after max deliveries", async () => {
      const [bus] = await world();
      const opts = { ackWaitMs: 5000, maxDeliveries: 2 };
      await bus.publishJob("jobs.region.eu", { id: "poison" });
      for (const count of [1, 2]) {
        const [d] = await bus.fetchJobs<Job>("jobs.region.eu", 1, 1000, opts);
        expect(d.deliveryCount).toBe(count);
        d.nak();
      }
      expect(await bus.fetchJobs("jobs.region.eu", 1, 1000, opts)).toEqual([]);
    });

    it("acks a consumed job when the handler resolves and redelivers it when the handler throws", async () => {
      const [bus] = await world();
      const counts: number[] = [];
      await bus.consumeJobs<Job>("jobs.region.eu", { maxInFlight: 1 }, (d) => {
        counts.push(d.deliveryCount);
        if (d.deliveryCount === 1) throw new Error("check crashed");
      });
      await bus.publishJob("jobs.region.eu", { id: "flaky" });
      await until(() => counts.length === 2);
      expect(counts).toEqual([1, 2]);
      await until(async () => (await bus.pendingJobs("jobs.region.eu")) === 0);
    });

    it("takes the next job once a handler releases its slot, and settles the released job when its handler ends", async () => {
      const [bus, other] = await world(2);
      const gates = new Map<string, () => void>();
      const started: string[] = [];
      const counts: Record<string, number[]> = {};
      await bus.consumeJobs<Job>("jobs.region.eu", { maxInFlight: 1 }, async (d, slot) => {
        started.push(d.data.id);
        (counts[d.data.id] ??= []).push(d.deliveryCount);
        slot.release();
        slot.release(); // a second release gives back nothing more
        await new Promise<void>((resolve) => gates.set(`${d.data.id}/${d.deliveryCount}`, resolve));
        if (d.data.id === "b" && d.deliveryCount === 1) throw new Error("publish failed");
      });
      for (const id of ["a", "b", "c"]) await other.publishJob("jobs.region.eu", { id });
      // One slot, yet all three run at once: each handler released its slot before it ended.
      await until(() => started.length === 3);
      expect(await other.fetchJobs("jobs.region.eu", 1, 1000)).toEqual([]);
      for (const key of ["a/1", "b/1", "c/1"]) gates.get(key)!();
      // The job whose handler threw after releasing is redelivered; the others were acked.
      await until(() => gates.has("b/2"), 8000);
      gates.get("b/2")!();
      expect(counts).toEqual({ a: [1], b: [1, 2], c: [1] });
      await until(async () => (await other.pendingJobs("jobs.region.eu")) === 0);
    });

    it("purges one subject's jobs, drops its consumer and counts the backlog per subject", async () => {
      const [bus] = await world();
      for (const id of ["1", "2", "3"]) await bus.publishJob("jobs.runner.r1", { id });
      await bus.publishJob("jobs.runner.r2", { id: "4" });
      const [claimed] = await bus.fetchJobs("jobs.runner.r1", 1, 1000);
      expect(await bus.pendingJobs("jobs.runner.r1")).toBe(3);
      expect(await bus.pendingJobs("jobs.runner.*")).toBe(4);
      await bus.publishJob("jobs.region.eu", { id: "6" });
      await bus.publishJob("jobs.region.eu.chromium", { id: "7" });
      expect([...(await bus.pendingJobsBySubject("jobs.runner.*"))].sort()).toEqual([["jobs.runner.r1", 3], ["jobs.runner.r2", 1]]);
      expect([...(await bus.pendingJobsBySubject("jobs.region.>"))].sort()).toEqual([["jobs.region.eu", 1], ["jobs.region.eu.chromium", 1]]);
      expect(await bus.purgeJobs("jobs.runner.r1", { dropConsumer: true })).toBe(3);
      expect([...(await bus.pendingJobsBySubject("jobs.runner.>"))]).toEqual([["jobs.runner.r2", 1]]);
      expect(await bus.pendingJobs("jobs.runner.r1")).toBe(0);
      expect(await bus.ackJob(claimed.token)).toBe(false);
      expect(await bus.pendingJobs("jobs.runner.r2")).toBe(1);
      await bus.publishJob("jobs.runner.r1", { id: "5" });
      expect((await bus.fetchJobs<Job>("jobs.runner.r1", 5, 1000)).map((d) => d.data.id)).toEqual(["5"]);
    });

    it("resetting a subject's consumer hands its unsettled jobs out again at once and keeps the rest", async () => {
      const [bus] = await world();
      for (const id of ["1", "2", "3"]) await bus.publishJob("jobs.runner.r1", { id });
      const claimed = await bus.fetchJobs<Job>("jobs.runner.r1", 2, 1000, { ackWaitMs: 60_000 });
      expect(claimed).toHaveLength(2);
      await bus.resetJobConsumer("jobs.runner.r1");
      expect(await bus.ackJob(claimed[0]!.token)).toBe(false);
      expect(await bus.pendingJobs("jobs.runner.r1")).toBe(3);
      const again = await bus.fetchJobs<Job>("jobs.runner.r1", 5, 1000);
      expect(again.map((d) => d.data.id).sort()).toEqual(["1", "2", "3"]);
      await bus.resetJobConsumer("jobs.runner.r9");
    });

    it("refuses a job consumer whose subject overlaps another's", async () => {
      const [bus] = await world();
      await bus.ensureTopology({ jobSubjects: ["jobs.region.eu"] });
      expect(String(await bus.consumeJobs("jobs.region.*", {}, () => {}).catch((e) => e))).toMatch(/not unique/);
    });

    it("gives every durable every result and shares a durable between its clients", async () => {
      const [ingestA, ingestB, alerting] = await world(3);
      const got: Record<string, string[]> = { a: [], b: [], alerting: [] };
      const collect = (who: string) => async (batch: Delivery<Job>[]) => {
        got[who].push(...batch.map((d) => d.data.id));
        await sleep(20);
      };
      const batching = { batchSize: 4, maxWaitMs: 50 };
      await ingestA.consumeResults("ingest", batching, collect("a"));
      await ingestB.consumeResults("ingest", batching, collect("b"));
      await alerting.consumeResults("alerting", batching, collect("alerting"));
      await Promise.all(Array.from({ length: 40 }, (_, i) => ingestA.publishResult(`results.org1.mon${i % 3}`, { id: `r${i}` })));
      await until(() => got.a.length + got.b.length >= 40 && got.alerting.length >= 40);
      await sleep(100);
      expect(new Set(got.alerting).size).toBe(40);
      expect(got.alerting.length).toBe(40);
      expect(new Set([...got.a, ...got.b]).size).toBe(40);
      expect(got.a.length + got.b.length).toBe(40);
      expect(got.a.length).toBeGreaterThan(0);
      expect(got.b.length).toBeGreaterThan(0);
    });

    it("delivers results and events as JSON carries them, and neither the publisher nor a consumer changes what another sees", async () => {
      const [bus] = await world();
      interface Sent {
        id: string;
        at: unknown;
        gone?: unknown;
        data: { list: number[] };
      }
      const sent = (): Sent => ({ id: "m1", at: new Date("2026-11-26T10:00:00Z"), gone: undefined, data: { list: [1, 2] } });
      const expected = { id: "m1", at: "2026-11-26T10:00:00.000Z", data: { list: [1, 2] } };
      /** What a careless consumer does: changes what it was handed (a frozen copy refuses, a parsed one is its own). */
      const meddle = (m: Sent) => {
        for (const change of [() => m.data.list.push(3), () => (m.id = "changed"), () => (m.data = { list: [] })]) {
          try {
            change();
          } catch {}
        }
      };
      const snapshot = (m: Sent) => JSON.parse(JSON.stringify(m));

      await bus.ensureTopology({ resultDurables: [{ name: "ingest" }, { name: "alerting" }] });
      const result = sent();
      await bus.publishResult("results.org1.mon1", result);
      result.data.list.push(99);
      result.id = "changed by the publisher";
      const seen: Record<string, unknown[]> = { ingest: [], alerting: [] };
      const consume = (durable: string) =>
        bus.consumeResults<Sent>(durable, { batchSize: 10, maxWaitMs: 10 }, (batch) => {
          for (const d of batch) {
            seen[durable]!.push(snapshot(d.data));
            meddle(d.data);
          }
        });
      await consume("ingest");
      await until(() => seen.ingest!.length === 1);
      await consume("alerting");
      await until(() => seen.alerting!.length === 1);
      expect(seen).toEqual({ ingest: [expected], alerting: [expected] });

      const events: unknown[] = [];
      bus.subscribeEvents<Sent>("events.org1", (e) => meddle(e));
      bus.subscribeEvents<Sent>("events.org1", (e) => events.push(snapshot(e)));
      await sleep(50);
      const event = sent();
      bus.publishEvent("events.org1", event);
      event.data.list.push(99);
      await until(() => events.length === 1);
      expect(events).toEqual([expected]);
    });

    it("hands over full batches at once and partial ones after maxWaitMs", async () => {
      const [bus] = await world();
      for (let i = 0; i < 7; i++) await bus.publishResult("results.org1.mon1", { id: `r${i}` });
      const sizes: number[] = [];
      const started = Date.now();
      let lastAt = 0;
      await bus.consumeResults("ingest", { batchSize: 5, maxWaitMs: 300 }, (batch) => {
        sizes.push(batch.length);
        lastAt = Date.now();
      });
      await until(() => sizes.reduce((a, b) => a + b, 0) === 7);
      expect(sizes).toEqual([5, 2]);
      expect(lastAt - started).toBeGreaterThanOrEqual(250);
    });

    it("redelivers a whole batch whose handler threw and keeps what it acked", async () => {
      const [bus] = await world();
      await bus.publishResult("results.org1.mon1", { id: "ok" });
      await bus.publishResult("results.org1.mon1", { id: "retry" });
      const seen: string[] = [];
      await bus.consumeResults<Job>("ingest", { batchSize: 10, maxWaitMs: 100 }, (batch) => {
        for (const d of batch) {
          seen.push(`${d.data.id}#${d.deliveryCount}`);
          if (d.data.id === "ok") d.ack();
        }
        if (batch.some((d) => d.deliveryCount === 1)) throw new Error("database unavailable");
      });
      await until(() => seen.includes("retry#2"), 5000);
      await sleep(200);
      expect(seen.sort()).toEqual(["ok#1", "retry#1", "retry#2"]);
    });

    it("counts a durable's results not yet acked: waiting, then in its handler, then none", async () => {
      const [bus] = await world();
      expect(await bus.pendingResults("ingest")).toBe(0);
      await bus.ensureTopology({ resultDurables: [{ name: "ingest" }, { name: "other", filter: "results.org2.>" }] });
      for (let i = 0; i < 3; i++) await bus.publishResult("results.org1.mon1", { id: `p${i}` });
      expect(await bus.pendingResults("ingest")).toBe(3);
      expect(await bus.pendingResults("other")).toBe(0);
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      let inHandler = 0;
      await bus.consumeResults<Job>("ingest", { batchSize: 10, maxWaitMs: 20 }, async (batch) => {
        inHandler += batch.length;
        await held;
      });
      await until(() => inHandler === 3);
      expect(await bus.pendingResults("ingest")).toBe(3);
      release();
      await until(async () => (await bus.pendingResults("ingest")) === 0);
    });

    it("de-duplicates a result published twice with the same id", async () => {
      const [bus] = await world();
      expect((await bus.publishResult("results.org1.mon1", { id: "job-9" })).duplicate).toBe(false);
      expect((await bus.publishResult("results.org1.mon1", { id: "job-9" })).duplicate).toBe(true);
      const seen: string[] = [];
      await bus.consumeResults<Job>("ingest", { batchSize: 10, maxWaitMs: 50 }, (b) => void seen.push(...b.map((d) => d.data.id)));
      await until(() => seen.length > 0);
      await sleep(300);
      expect(seen).toEqual(["job-9"]);
    });

    it("filters a durable by subject", async () => {
      const [bus] = await world();
      await bus.publishResult("results.org1.mon1", { id: "mine" });
      await bus.publishResult("results.org2.mon1", { id: "theirs" });
      const seen: string[] = [];
      await bus.consumeResults<Job>("org1", { filter: "results.org1.>", maxWaitMs: 50 }, (b) => void seen.push(...b.map((d) => d.subject)));
      await until(() => seen.length > 0);
      await sleep(200);
      expect(seen).toEqual(["results.org1.mon1"]);
    });

    it("fans events out to exact and wildcard subscribers in other clients", async () => {
      const [api, ingest] = await world(2);
      const all: [unknown, string][] = [];
      const org1: unknown[] = [];
      api.subscribeEvents("events.*", (e, subject) => all.push([e, subject]));
      const unsubscribe = api.subscribeEvents("events.org1", (e) => org1.push(e));
      await sleep(50);
      ingest.publishEvent("events.org1", { kind: "status", up: true });
      ingest.publishEvent("events.org2", { kind: "status", up: false });
      await until(() => all.length === 2 && org1.length === 1);
      expect(all).toEqual([
        [{ kind: "status", up: true }, "events.org1"],
        [{ kind: "status", up: false }, "events.org2"],
      ]);
      unsubscribe();
      await sleep(50);
      ingest.publishEvent("events.org1", { kind: "again" });
      await until(() => all.length === 3);
      await sleep(50);
      expect(org1).toEqual([{ kind: "status", up: true }]);
    });

    it("ensures topology idempotently from racing clients and with changed settings", async () => {
      const durables = { resultDurables: [{ name: "ingest" }, { name: "alerting" }], jobSubjects: ["jobs.region.eu" as const] };
      for (let round = 0; round < 3; round++) {
        const [a, b, c] = await world(3, { ensure: false });
        await Promise.all([a, b, c].map((bus) => bus.ensureTopology(durables)));
        await a.ensureTopology(durables);
        await a.publishResult("results.org1.mon1", { id: "before-consumer-ran" });
        const seen: string[] = [];
        await b.consumeResults<Job>("alerting", { maxWaitMs: 50 }, (batch) => void seen.push(...batch.map((d) => d.data.id)));
        await until(() => seen.length === 1);
        const changed = await makeBus({ prefix: prefixes.at(-1)!, jobs: { duplicateWindowMs: 60_000 }, results: { maxAgeMs: 3_600_000 } });
        open.push(changed);
        await changed.ensureTopology(durables);
        expect((await c.publishJob("jobs.region.eu", { id: "after" })).duplicate).toBe(false);
      }
    });

    it("answers a request from one server of a queue group", async () => {
      const [caller, a, b] = await world(3);
      const served: Record<string, number> = { a: 0, b: 0 };
      for (const [who, bus] of [["a", a], ["b", b]] as const) {
        await bus.serve<{ n: number }, { n: number; by: string; subject: string }>("rpc.work.*", { queue: "work" }, async (body, subject) => {
          served[who]++;
          return { n: body.n * 2, by: who, subject };
        });
      }
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => caller.request<{ n: number }, { n: number; by: string; subject: string }>("rpc.work.eu", { n: i }, { timeoutMs: 2000 })));
      expect(answers.map((x) => x.n)).toEqual(Array.from({ length: 10 }, (_, i) => i * 2));
      expect(answers.every((x) => x.subject === "rpc.work.eu")).toBe(true);
      expect(served.a + served.b).toBe(10);
    });

    it("rejects a request nobody serves with NoResponderError at once", async () => {
      const [caller, other] = await world(2);
      await other.serve("rpc.work.us", { queue: "work" }, async () => "us");
      const started = Date.now();
      const err = await caller.request("rpc.work.eu", {}, { timeoutMs: 3000 }).catch((e) => e);
      expect(err).toBeInstanceOf(NoResponderError);
      expect(Date.now() - started).toBeLessThan(1000);
    });

    it("rejects with RequestTimeoutError when the server is slower than timeoutMs", async () => {
      const [caller, server] = await world(2);
      await server.serve("rpc.slow", {}, async () => {
        await sleep(600);
        return "late";
      });
      const started = Date.now();
      const err = await caller.request("rpc.slow", {}, { timeoutMs: 150 }).catch((e) => e);
      expect(err).toBeInstanceOf(RequestTimeoutError);
      expect(Date.now() - started).toBeGreaterThanOrEqual(140);
      expect(Date.now() - started).toBeLessThan(550);
      await sleep(500); // let the slow handler finish before the clients close
    });

    it("carries a thrown AppError's code and details to the caller", async () => {
      const [caller, server] = await world(2);
      class Coded extends Error {
        constructor(
          readonly status: number,
          readonly code: string,
          message: string,
          readonly details: Record<string, unknown>,
        ) {
          super(message);
        }
      }
      await server.serve("rpc.fails", {}, async () => {
        throw new Coded(503, "SERVICE_UNAVAILABLE", "no browser", { reason: "no_worker" });
      });
      const err = await caller.request("rpc.fails", {}, { timeoutMs: 2000 }).catch((e) => e);
      expect(err).toBeInstanceOf(RemoteError);
      expect(err).toMatchObject({ message: "no browser", code: "SERVICE_UNAVAILABLE", status: 503, details: { reason: "no_worker" } });
    });

    it("stops answering after the serve handle is stopped", async () => {
      const [caller, server] = await world(2);
      const handle = await server.serve("rpc.once", { queue: "once" }, async () => "yes");
      expect(await caller.request<unknown, string>("rpc.once", {}, { timeoutMs: 2000 })).toBe("yes");
      await handle.stop();
      await sleep(50);
      expect(await caller.request("rpc.once", {}, { timeoutMs: 1000 }).catch((e) => e)).toBeInstanceOf(NoResponderError);
    });

    it("keeps prefixes apart", async () => {
      const [a] = await world();
      const [b] = await world();
      await a.serve("rpc.ping", {}, async () => "a");
      expect(await a.request<unknown, string>("rpc.ping", {}, { timeoutMs: 2000 })).toBe("a");
      expect(await b.request("rpc.ping", {}, { timeoutMs: 1000 }).catch((e) => e)).toBeInstanceOf(NoResponderError);
    });

    it("carries presence beats on workers.<region>.<workerId> like events", async () => {
      const [worker, ingest] = await world(2);
      const beats: [unknown, string][] = [];
      ingest.subscribeEvents("workers.*.*", (beat, subject) => beats.push([beat, subject]));
      await sleep(50);
      worker.publishEvent("workers.eu-west.w1", { at: 1 });
      await until(() => beats.length === 1);
      expect(beats).toEqual([[{ at: 1 }, "workers.eu-west.w1"]]);
    });

    it("closes cleanly and hands unhandled jobs back at once", async () => {
      const [worker, other] = await world(2);
      const handled: string[] = [];
      await worker.consumeJobs<Job>("jobs.region.eu", { maxInFlight: 1 }, async (d) => {
        await sleep(300);
        handled.push(d.data.id);
      });
      for (const id of ["1", "2", "3"]) await other.publishJob("jobs.region.eu", { id });
      await sleep(100);
      await worker.close();
      expect(handled).toEqual(["1"]);
      await worker.close();
      const started = Date.now();
      const rest = await other.fetchJobs<Job>("jobs.region.eu", 2, 3000);
      const more = rest.length < 2 ? await other.fetchJobs<Job>("jobs.region.eu", 2, 3000) : [];
      expect([...rest, ...more].map((d) => d.data.id).sort()).toEqual(["2", "3"]);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(() => worker.publishEvent("events.org1", {})).toThrow();
    });
  });
}
