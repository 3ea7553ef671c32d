import { describe, expect, it } from "bun:test";
import { ClaimWatch } from "./claim-watch.ts";

describe("ClaimWatch", () => {
  it("ends every long-poll of a runner that stopped, and only those", () => {
    const watch = new ClaimWatch();
    const a = watch.open("run_a", "rsn_1");
    const b = watch.open("run_b", "rsn_2");
    watch.stopped("run_a");
    expect(a.signal.aborted).toBe(true);
    expect(b.signal.aborted).toBe(false);
  });

  it("ends a long-poll with its request", () => {
    const watch = new ClaimWatch();
    const client = new AbortController();
    const poll = watch.open("run_a", "rsn_1", client.signal);
    client.abort();
    expect(poll.signal.aborted).toBe(true);
  });

  it("gives back, once the runner stopped, the jobs handed to it that it never settled", () => {
    const watch = new ClaimWatch();
    watch.handOut("run_a", "rsn_1", ["t1", "t2", "t3"]);
    watch.handOut("run_b", "rsn_2", ["t4"]);
    watch.settle(["t2"]);
    expect(watch.stopped("run_a").sort()).toEqual(["t1", "t3"]);
    expect(watch.stopped("run_a")).toEqual([]);
    expect(watch.stopped("run_b")).toEqual(["t4"]);
  });

  it("forgets a closed long-poll", () => {
    const watch = new ClaimWatch();
    const poll = watch.open("run_a", "rsn_1");
    poll.close();
    watch.stopped("run_a");
    expect(poll.signal.aborted).toBe(false);
  });
});
