import { describe, expect, it } from "bun:test";
import { classifyAddress, HostResolutionError, resolveAndCheck, TargetRefusedError, type HostResolver } from "./index.ts";

const cloud = { allowPrivate: false, ipv6: false };
const selfHosted = { allowPrivate: true, ipv6: true };
const publicV6 = { allowPrivate: false, ipv6: true };

const fixedResolver =
  (...addresses: string[]): HostResolver =>
  async (_host, family) =>
    addresses
      .map((address) => ({ address, family: (address.includes(":") ? 6 : 4) as 4 | 6 }))
      .filter((a) => family === 0 || a.family === 4);

async function refusal(host: string, options: Parameters<typeof resolveAndCheck>[1]): Promise<TargetRefusedError> {
  const err = await resolveAndCheck(host, options).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TargetRefusedError);
  return err as TargetRefusedError;
}

describe("classifyAddress", () => {
  const cases: Array<[string, string]> = [
    ["8.8.8.8", "public"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.254", "private"],
    ["192.168.1.1", "private"],
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["169.254.1.1", "link_local"],
    ["100.64.0.1", "carrier_grade_nat"],
    ["100.127.255.255", "carrier_grade_nat"],
    ["0.0.0.0", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["192.0.2.10", "reserved"],
    ["169.254.169.254", "cloud_metadata"],
    ["100.100.100.200", "cloud_metadata"],
    ["2606:4700::1111", "public"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "link_local"],
    ["fc00::1", "unique_local"],
    ["fd12:3456::1", "unique_local"],
    ["fd00:ec2::254", "cloud_metadata"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "reserved"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:169.254.169.254", "cloud_metadata"],
    ["::ffff:8.8.8.8", "public"],
    ["64:ff9b::a00:1", "private"],
    ["2002:c0a8:0101::1", "private"],
  ];
  for (const [address, range] of cases) {
    it(`puts ${address} in the ${range} range`, () => {
      expect(classifyAddress(address).range).toBe(range as never);
    });
  }

  it("reads numeric and hex IPv4 forms as the address they denote", () => {
    expect(classifyAddress("2130706433")).toMatchObject({ address: "127.0.0.1", range: "loopback" });
    expect(classifyAddress("0x7f000001")).toMatchObject({ address: "127.0.0.1", range: "loopback" });
  });

  it("names the embedded IPv4 address of an IPv4-mapped IPv6 address", () => {
    expect(classifyAddress("::ffff:7f00:1")).toMatchObject({ family: 6, range: "loopback", embeddedIpv4: "127.0.0.1" });
  });

  it("gives every caller the same verdict for a literal, which no caller can change", () => {
    const first = classifyAddress("10.1.2.3");
    expect(() => Object.assign(first, { range: "public" })).toThrow();
    expect(classifyAddress("10.1.2.3")).toEqual({ address: "10.1.2.3", family: 4, range: "private" });
  });
});

describe("resolveAndCheck", () => {
  const refusedByDefault = [
    "10.0.0.1",
    "172.20.1.1",
    "192.168.0.10",
    "127.0.0.1",
    "169.254.10.10",
    "100.64.1.1",
    "0.0.0.0",
    "224.1.1.1",
    "255.255.255.255",
    "198.51.100.7",
    "169.254.169.254",
    "100.100.100.200",
  ];
  for (const address of refusedByDefault) {
    it(`refuses ${address} on a cloud region`, async () => {
      await refusal(address, cloud);
    });
  }

  const refusedV6 = ["::1", "fe80::1", "fc00::1", "::", "ff02::1", "fd00:ec2::254", "::ffff:127.0.0.1", "::ffff:192.168.0.1"];
  for (const address of refusedV6) {
    it(`refuses ${address} even where IPv6 is allowed`, async () => {
      await refusal(`[${address}]`, publicV6);
    });
  }

  it("accepts a public IPv4 literal and returns it", async () => {
    expect(await resolveAndCheck("93.184.215.14", cloud)).toEqual({ address: "93.184.215.14", family: 4 });
  });

  it("refuses loopback when private targets are not allowed", async () => {
    const err = await refusal("127.0.0.1", cloud);
    expect(err.reason).toBe("loopback");
    expect(err.message).toContain("ALLOW_PRIVATE_IPS");
  });

  it("allows loopback, RFC 1918 and unique-local targets on a runner with ALLOW_PRIVATE_IPS", async () => {
    expect(await resolveAndCheck("127.0.0.1", selfHosted)).toEqual({ address: "127.0.0.1", family: 4 });
    expect(await resolveAndCheck("10.9.8.7", selfHosted)).toEqual({ address: "10.9.8.7", family: 4 });
    expect(await resolveAndCheck("[fd00::5]", selfHosted)).toEqual({ address: "fd00::5", family: 6 });
  });

  it("refuses cloud metadata addresses even with ALLOW_PRIVATE_IPS", async () => {
    expect((await refusal("169.254.169.254", selfHosted)).reason).toBe("cloud_metadata");
    expect((await refusal("::ffff:169.254.169.254", selfHosted)).reason).toBe("cloud_metadata");
    expect((await refusal("fd00:ec2::254", selfHosted)).reason).toBe("cloud_metadata");
  });

  it("refuses multicast, broadcast, unspecified and reserved addresses even with ALLOW_PRIVATE_IPS", async () => {
    for (const address of ["224.0.0.251", "255.255.255.255", "0.0.0.0", "240.1.1.1", "ff02::1", "::"]) {
      await refusal(address, selfHosted);
    }
  });

  it("judges an IPv4-mapped IPv6 address by the IPv4 address inside it", async () => {
    const err = await refusal("::ffff:10.1.1.1", publicV6);
    expect(err.reason).toBe("private");
    expect(err.embeddedIpv4).toBe("10.1.1.1");
    expect(err.message).toContain("10.1.1.1");
  });

  it("refuses a host name that resolves to a private address", async () => {
    const err = await refusal("intranet.example.com", { ...cloud, resolver: fixedResolver("192.168.10.20") });
    expect(err.host).toBe("intranet.example.com");
    expect(err.address).toBe("192.168.10.20");
    expect(err.message).toContain("intranet.example.com (192.168.10.20)");
  });

  it("refuses a host name when any one of its addresses is private", async () => {
    await refusal("mixed.example.com", { ...cloud, resolver: fixedResolver("93.184.215.14", "10.0.0.8") });
  });

  it("returns the checked address of a host name that resolves to public addresses", async () => {
    const resolver = fixedResolver("93.184.215.14", "93.184.215.15");
    expect(await resolveAndCheck("www.example.com", { ...cloud, resolver })).toEqual({ address: "93.184.215.14", family: 4 });
  });

  it("ignores IPv6 answers when IPv6 is off and uses them when it is on", async () => {
    const resolver = fixedResolver("2606:4700::1111", "93.184.215.14");
    expect(await resolveAndCheck("dual.example.com", { ...cloud, resolver })).toEqual({ address: "93.184.215.14", family: 4 });
    expect(await resolveAndCheck("dual.example.com", { ...publicV6, resolver })).toEqual({ address: "2606:4700::1111", family: 6 });
  });

  it("refuses an IPv6 literal on an IPv4-only region", async () => {
    expect((await refusal("[2606:4700::1111]", cloud)).reason).toBe("ipv6_disabled");
  });

  it("reports a name with only IPv6 addresses as unresolvable on an IPv4-only region", async () => {
    const err = await resolveAndCheck("v6only.example.com", { ...cloud, resolver: fixedResolver("2606:4700::1111") }).catch((e) => e);
    expect(err).toBeInstanceOf(HostResolutionError);
    expect(err.message).toContain("no IPv4 address");
  });

  it("reports a name that does not resolve", async () => {
    const resolver: HostResolver = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    const err = await resolveAndCheck("nope.invalid", { ...cloud, resolver }).catch((e) => e);
    expect(err).toBeInstanceOf(HostResolutionError);
    expect(err.code).toBe("ENOTFOUND");
  });

  it("resolves localhost through the system resolver and refuses it by default", async () => {
    expect((await refusal("localhost", cloud)).reason).toBe("loopback");
    expect(await resolveAndCheck("localhost", { allowPrivate: true, ipv6: false })).toEqual({ address: "127.0.0.1", family: 4 });
  });

  it("does not look the name up after the signal has fired", async () => {
    let asked = false;
    const resolver: HostResolver = async () => {
      asked = true;
      return [];
    };
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(resolveAndCheck("a.example.com", { ...cloud, resolver, signal: controller.signal })).rejects.toThrow("stop");
    expect(asked).toBe(false);
  });
});
