import { describe, expect, it } from "bun:test";
import { KUMA_CONVERTERS } from "./convert-monitor.ts";
import type { KumaMonitor } from "./kuma-types.ts";

const dns = (extra: Partial<KumaMonitor>): KumaMonitor => ({ id: 1, name: "DNS", type: "dns", hostname: "example.com", dns_resolve_type: "A", dns_resolve_server: "10.0.0.53", ...extra });

describe("Kuma DNS monitors", () => {
  it("keep the resolver's port, which Kuma stores in the monitor's port field (dnsResolve(hostname, dns_resolve_server, port, type))", () => {
    const r = KUMA_CONVERTERS.dns!(dns({ port: 5353 }), "dns", () => false);
    expect(r.ok && r.monitor.config).toEqual({ name: "example.com", record_type: "A", resolver: "10.0.0.53:5353" });
  });

  it("leave port 53 (Kuma's default) out", () => {
    const r = KUMA_CONVERTERS.dns!(dns({ port: 53 }), "dns", () => false);
    expect(r.ok && r.monitor.config).toEqual({ name: "example.com", record_type: "A", resolver: "10.0.0.53" });
  });
});
