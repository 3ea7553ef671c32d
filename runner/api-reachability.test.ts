import { describe, expect, it } from "bun:test";
import { createLogger } from "../core/log.ts";
import { ApiReachability } from "./api-reachability.ts";

function capture() {
  const lines: { level: number; msg: string; [k: string]: unknown }[] = [];
  const log = createLogger({ level: "debug", format: "json", destination: { write: (s: string) => void lines.push(JSON.parse(s)) } });
  return { log, lines };
}

describe("ApiReachability", () => {
  it("warns once when the API stops answering and says once when it is back, however many calls fail between", () => {
    const { log, lines } = capture();
    let now = 1_000;
    const r = new ApiReachability({ log, server: "https://api.example.test", retryMs: 5000, now: () => now });
    r.answered();
    expect(lines).toEqual([]);
    for (let i = 0; i < 5; i++) {
      now += 1000;
      r.failed("connect ECONNREFUSED 127.0.0.1:443 (/jobs/claim)");
    }
    expect(r.reachable).toBe(false);
    const warned = lines.filter((l) => l.level === 40);
    expect(warned).toHaveLength(1);
    expect(warned[0]!.msg).toContain("API unreachable at https://api.example.test");
    expect(warned[0]!.msg).toContain("ECONNREFUSED");
    // The retries are there for whoever asks for debug.
    expect(lines.filter((l) => l.level === 20)).toHaveLength(4);

    now += 3000;
    r.answered();
    r.answered();
    expect(r.reachable).toBe(true);
    const back = lines.filter((l) => l.level === 30);
    expect(back).toHaveLength(1);
    expect(back[0]).toMatchObject({ op: "runner.api", server: "https://api.example.test", downForMs: 7000, failedCalls: 5 });
    expect(back[0]!.msg).toContain("API reachable again");

    // A second outage is a second change.
    r.failed("no answer to /heartbeat within 30000 ms");
    expect(lines.filter((l) => l.level === 40)).toHaveLength(2);
  });
});
