import { describe, expect, it } from "bun:test";
import { parsePingOutput } from "./parse-ping-output.ts";

describe("parsePingOutput", () => {
  it("reads the iputils summary", () => {
    const out = "--- 127.0.0.1 ping statistics ---\n3 packets transmitted, 3 received, 0% packet loss, time 405ms\nrtt min/avg/max/mdev = 0.031/0.045/0.058/0.011 ms\n";
    expect(parsePingOutput(out)).toEqual({ packetsSent: 3, packetsReceived: 3, errors: 0, lossPct: 0, rttMinMs: 0.031, rttAvgMs: 0.045, rttMaxMs: 0.058 });
  });

  it("reads a summary with errors and no round trips", () => {
    const out = "3 packets transmitted, 0 received, +3 errors, 100% packet loss, time 2040ms\n";
    expect(parsePingOutput(out)).toEqual({ packetsSent: 3, packetsReceived: 0, errors: 3, lossPct: 100, rttMinMs: null, rttAvgMs: null, rttMaxMs: null });
  });

  it("counts the ICMP errors of an unreachable host (iputils 20221126, ARP unanswered on a veth in a private netns)", () => {
    const out = [
      "PING 10.9.9.2 (10.9.9.2) 56(84) bytes of data.",
      "",
      "--- 10.9.9.2 ping statistics ---",
      "3 packets transmitted, 0 received, +3 errors, 100% packet loss, time 408ms",
      "pipe 3",
    ].join("\n");
    expect(parsePingOutput(out)).toMatchObject({ packetsSent: 3, packetsReceived: 0, errors: 3, lossPct: 100 });
  });

  it("reads the BSD and busybox summary", () => {
    const out = "4 packets transmitted, 4 packets received, 0.0% packet loss\nround-trip min/avg/max/stddev = 0.1/0.2/0.3/0.05 ms\n";
    expect(parsePingOutput(out)).toMatchObject({ packetsSent: 4, packetsReceived: 4, lossPct: 0, rttMaxMs: 0.3 });
  });

  it("returns null when there is no summary", () => {
    expect(parsePingOutput("ping: unknown host\n")).toBeNull();
  });
});
