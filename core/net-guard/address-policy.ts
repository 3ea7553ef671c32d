import ipaddr from "ipaddr.js";

/**
 * Where an address sits. `public` is the only range every runner may contact; the
 * `PRIVATE_RANGES` open up with ALLOW_PRIVATE_IPS; everything else is never a target.
 */
export type AddressRange =
  | "public"
  | "private"
  | "loopback"
  | "link_local"
  | "carrier_grade_nat"
  | "unique_local"
  | "site_local"
  | "unspecified"
  | "multicast"
  | "broadcast"
  | "reserved"
  | "cloud_metadata";

export interface AddressClass {
  /** Canonical text form of the address (what to connect to). */
  address: string;
  family: 4 | 6;
  range: AddressRange;
  /** For IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4): the embedded address that was judged. */
  embeddedIpv4?: string;
}

/** Ranges that ALLOW_PRIVATE_IPS (guard option `allowPrivate`) opens up. */
export const PRIVATE_RANGES: ReadonlySet<AddressRange> = new Set<AddressRange>([
  "private",
  "loopback",
  "link_local",
  "carrier_grade_nat",
  "unique_local",
  "site_local",
]);

export const RANGE_LABELS: Readonly<Record<AddressRange, string>> = {
  public: "public address",
  private: "private address (RFC 1918)",
  loopback: "loopback address",
  link_local: "link-local address",
  carrier_grade_nat: "carrier-grade NAT address (100.64.0.0/10)",
  unique_local: "unique-local IPv6 address (fc00::/7)",
  site_local: "site-local IPv6 address (fec0::/10)",
  unspecified: "unspecified address",
  multicast: "multicast address",
  broadcast: "broadcast address",
  reserved: "reserved or special-purpose address",
  cloud_metadata: "cloud metadata address",
};

// Instance-metadata endpoints of AWS (IMDS, ECS, EKS pod identity), GCP, Azure, Oracle and Alibaba.
const METADATA_ADDRESSES = new Set([
  "169.254.169.254",
  "169.254.170.2",
  "169.254.170.23",
  "100.100.100.200",
  "192.0.0.192",
  "fd00:ec2::254",
  "fd00:ec2::23",
]);

const IPV4_RANGES: Readonly<Record<string, AddressRange>> = {
  unicast: "public",
  private: "private",
  loopback: "loopback",
  linkLocal: "link_local",
  carrierGradeNat: "carrier_grade_nat",
  unspecified: "unspecified",
  multicast: "multicast",
  broadcast: "broadcast",
};

const IPV6_RANGES: Readonly<Record<string, AddressRange>> = {
  unicast: "public",
  loopback: "loopback",
  linkLocal: "link_local",
  uniqueLocal: "unique_local",
  deprecatedSiteLocal: "site_local",
  unspecified: "unspecified",
  multicast: "multicast",
};

/** True when `text` is an IP literal in any form the system resolver would also read as one. */
export function isIpLiteral(text: string): boolean {
  return classified.has(text) || ipaddr.isValid(stripBrackets(text));
}

export function stripBrackets(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/**
 * Literals already classified, by their text as given (frozen). Checks classify the same addresses
 * over and over (a URL's literal, a name's answers); emptied whole when full.
 */
const classified = new Map<string, Readonly<AddressClass>>();
const MAX_CLASSIFIED = 4096;

/** Classify one IP literal. Throws a plain Error when `text` is not an IP address. */
export function classifyAddress(text: string): Readonly<AddressClass> {
  const known = classified.get(text);
  if (known) return known;
  const c = Object.freeze(classifyParsed(ipaddr.parse(stripBrackets(text))));
  if (classified.size >= MAX_CLASSIFIED) classified.clear();
  classified.set(text, c);
  return c;
}

function classifyParsed(parsed: ipaddr.IPv4 | ipaddr.IPv6): AddressClass {
  if (parsed.kind() === "ipv4") return classifyV4(parsed as ipaddr.IPv4);
  const v6 = parsed as ipaddr.IPv6;
  const address = v6.toString();
  if (METADATA_ADDRESSES.has(address)) return { address, family: 6, range: "cloud_metadata" };
  const embedded = embeddedIpv4(v6);
  if (embedded) {
    const inner = classifyV4(embedded);
    return { address, family: 6, range: inner.range, embeddedIpv4: inner.address };
  }
  return { address, family: 6, range: IPV6_RANGES[v6.range()] ?? "reserved" };
}

function classifyV4(v4: ipaddr.IPv4): AddressClass {
  const address = v4.toString();
  if (METADATA_ADDRESSES.has(address)) return { address, family: 4, range: "cloud_metadata" };
  return { address, family: 4, range: IPV4_RANGES[v4.range()] ?? "reserved" };
}

// IPv6 forms that route to an IPv4 address are judged by that address, so
// ::ffff:127.0.0.1 or 64:ff9b::a00:1 cannot smuggle a private target past the guard.
function embeddedIpv4(v6: ipaddr.IPv6): ipaddr.IPv4 | null {
  const range = v6.range();
  const p = v6.parts;
  if (range === "ipv4Mapped" || range === "rfc6145") return fromParts(p[6], p[7]);
  if (range === "rfc6052" && p[2] === 0) return fromParts(p[6], p[7]); // 64:ff9b::/96 only
  if (range === "6to4") return fromParts(p[1], p[2]);
  return null;
}

function fromParts(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}
