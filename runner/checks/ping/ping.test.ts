import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HostResolver } from "../../../core/net-guard/index.ts";
import { runCheckContract } from "../contract.ts";
import type { CheckContext } from "../types.ts";
import { pingCheck } from "./ping.ts";

const resolver: HostResolver = async (host) => {
  if (host === "router.test") return [{ address: "127.0.0.1", family: 4 }];
  // ping itself stops before the deadline, so the check's hanging target is a name whose lookup outlasts it.
  if (host === "slow.test") return new Promise((resolve) => setTimeout(resolve, 2000, [{ address: "127.0.0.1", family: 4 }]));
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
};
const ctx = (extra: Partial<CheckContext> = {}): CheckContext => ({ timeoutMs: 5000, guard: { allowPrivate: true, ipv6: false, resolver }, ...extra });

let dir: string;
/** A stand-in ping binary that prints `output` and exits with `code`, to exercise packet-loss rules. */
function fakePing(name: string, output: string, code: number): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\ncat <<'OUT'\n${output}\nOUT\nexit ${code}\n`);
  chmodSync(path, 0o755);
  return path;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "wp-ping-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

runCheckContract(pingCheck, {
  context: () => ({ guard: { allowPrivate: true, ipv6: false, resolver } }),
  reachable: () => ({ host: "127.0.0.1", count: 1 }),
  failing: () => ({ host: "nowhere.test" }),
  hanging: () => ({ host: "slow.test" }),
  invalid: [{ host: "127.0.0.1", count: 0 }, { host: "127.0.0.1", count: 11 }, { count: 3 }],
});

describe("ping check", () => {
  it("reports up with round-trip times when every echo is answered", async () => {
    const result = await pingCheck.run({ host: "127.0.0.1", count: 2 }, ctx());
    expect(result.status).toBe("up");
    expect(result.data).toMatchObject({ packets_sent: 2, packets_received: 2, packet_loss_pct: 0, ip: "127.0.0.1" });
    for (const key of ["rtt_min_ms", "rtt_avg_ms", "rtt_max_ms"]) expect(result.data[key]).toBeGreaterThanOrEqual(0);
  });

  it("pings the address the guard checked for a host name", async () => {
    const result = await pingCheck.run({ host: "router.test", count: 1 }, ctx());
    expect(result.status).toBe("up");
    expect(result.data.ip).toBe("127.0.0.1");
  });

  it("reports degraded when some echoes are lost", async () => {
    const pingPath = fakePing(
      "lossy",
      "--- 192.0.2.1 ping statistics ---\n3 packets transmitted, 2 received, 33.3333% packet loss, time 402ms\nrtt min/avg/max/mdev = 1.100/1.200/1.300/0.100 ms",
      1,
    );
    const result = await pingCheck.run({ host: "127.0.0.1" }, ctx({ endpoints: { pingPath } }));
    expect(result.status).toBe("degraded");
    expect(result.data).toMatchObject({ packets_sent: 3, packets_received: 2, packet_loss_pct: 33.3333, rtt_avg_ms: 1.2 });
  });

  it("reports down when no echo is answered", async () => {
    const pingPath = fakePing("silent", "--- 192.0.2.1 ping statistics ---\n3 packets transmitted, 0 received, 100% packet loss, time 2040ms", 1);
    const result = await pingCheck.run({ host: "127.0.0.1" }, ctx({ endpoints: { pingPath } }));
    expect(result.status).toBe("down");
    expect(result.error).toContain("100% packet loss");
    expect(result.data).toMatchObject({ packet_loss_pct: 100, rtt_min_ms: null });
  });

  it("says the destination is unreachable when ping counted ICMP errors", async () => {
    const pingPath = fakePing("unreachable", "--- 10.9.9.2 ping statistics ---\n3 packets transmitted, 0 received, +3 errors, 100% packet loss, time 408ms\npipe 3", 1);
    const result = await pingCheck.run({ host: "127.0.0.1" }, ctx({ endpoints: { pingPath } }));
    expect(result.status).toBe("down");
    expect(result.error).toBe("no replies from 127.0.0.1 (100% packet loss; destination unreachable: 3 errors)");
  });

  it("reports down with ping's own message when ping cannot run", async () => {
    const pingPath = fakePing("broken", "", 2);
    writeFileSync(pingPath, "#!/bin/sh\necho 'ping: socket: Operation not permitted' >&2\nexit 2\n");
    const result = await pingCheck.run({ host: "127.0.0.1" }, ctx({ endpoints: { pingPath } }));
    expect(result.status).toBe("down");
    expect(result.error).toBe("ping failed: ping: socket: Operation not permitted");
  });

  it("reports down when the ping binary is missing", async () => {
    const result = await pingCheck.run({ host: "127.0.0.1" }, ctx({ endpoints: { pingPath: join(dir, "no-such-ping") } }));
    expect(result.status).toBe("down");
    expect(result.error).toContain("no-such-ping");
  });

  it("fits every echo into a timeoutMs shorter than a second", async () => {
    for (const [count, timeoutMs] of [[5, 600], [10, 400], [3, 250]] as const) {
      const result = await pingCheck.run({ host: "127.0.0.1", count }, ctx({ timeoutMs }));
      expect(result.status, `count ${count}, timeoutMs ${timeoutMs}`).toBe("up");
      expect(result.data.packets_received).toBe(count);
    }
  });

  it("reports timeout when ping outlasts timeoutMs", async () => {
    const pingPath = join(dir, "stuck");
    writeFileSync(pingPath, "#!/bin/sh\nexec sleep 5\n");
    chmodSync(pingPath, 0o755);
    const result = await pingCheck.run({ host: "127.0.0.1" }, ctx({ timeoutMs: 400, endpoints: { pingPath } }));
    expect(result.status).toBe("timeout");
  });
});
