import { describe, expect, it } from "bun:test";
import { ipAllowed, parseCidr } from "./access.ts";

describe("ipAllowed", () => {
  it("allows everyone when the list is empty", () => {
    expect(ipAllowed("203.0.113.9", [])).toBe(true);
  });

  it("matches IPv4 and IPv6 ranges and single addresses", () => {
    const list = ["10.0.0.0/8", "2001:db8::/32", "198.51.100.7"];
    expect(ipAllowed("10.1.2.3", list)).toBe(true);
    expect(ipAllowed("11.1.2.3", list)).toBe(false);
    expect(ipAllowed("2001:db8::1", list)).toBe(true);
    expect(ipAllowed("2001:db9::1", list)).toBe(false);
    expect(ipAllowed("198.51.100.7", list)).toBe(true);
    expect(ipAllowed("::ffff:10.9.9.9", list)).toBe(true);
  });

  it("refuses what is not an address", () => {
    expect(ipAllowed("unknown", ["0.0.0.0/0"])).toBe(false);
  });

  it("parses CIDRs and refuses bad ones", () => {
    expect(parseCidr("10.0.0.0/8")).not.toBeNull();
    expect(parseCidr("10.0.0.0/33")).toBeNull();
    expect(parseCidr("example.com")).toBeNull();
  });
});
