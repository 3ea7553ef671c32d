import { lookup } from "node:dns/promises";
import { classifyAddress, isIpLiteral, PRIVATE_RANGES, RANGE_LABELS, stripBrackets, type AddressRange } from "./address-policy.ts";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name. `family` 4 asks for IPv4 only, 0 for both families. */
export type HostResolver = (host: string, family: 0 | 4) => Promise<ResolvedAddress[]>;

export interface GuardOptions {
  /** ALLOW_PRIVATE_IPS: permit private, loopback, link-local, CGNAT and unique-local targets. */
  allowPrivate: boolean;
  /** Whether this runner may use IPv6 (IPV6_EGRESS; hosted cloud regions are IPv4 only). */
  ipv6: boolean;
  /** Replaces the system resolver, e.g. in tests. */
  resolver?: HostResolver;
  /** Stops waiting for the resolver. */
  signal?: AbortSignal;
}

export type RefusalReason = Exclude<AddressRange, "public"> | "ipv6_disabled";

/** A target the guard will not contact. Permanent: retrying the same target gives the same answer. */
export class TargetRefusedError extends Error {
  override readonly name = "TargetRefusedError";
  readonly permanent = true;

  constructor(
    readonly host: string,
    readonly address: string,
    readonly reason: RefusalReason,
    readonly embeddedIpv4?: string,
  ) {
    super(refusalMessage(host, address, reason, embeddedIpv4));
  }
}

/** The host name did not resolve to any usable address. Not permanent: DNS can change. */
export class HostResolutionError extends Error {
  override readonly name = "HostResolutionError";
  readonly permanent = false;

  constructor(
    readonly host: string,
    readonly code: string,
    detail?: string,
  ) {
    super(`could not resolve ${host}: ${detail ?? code}`);
  }
}

function refusalMessage(host: string, address: string, reason: RefusalReason, embedded?: string): string {
  const target = host === address ? address : `${host} (${address})`;
  if (reason === "ipv6_disabled") return `refused to contact ${target}: this region does not check IPv6 targets (hosted cloud regions are IPv4 only): use a self-hosted runner, or set IPV6_EGRESS=true where the machine has IPv6`;
  const what = embedded ? `${RANGE_LABELS[reason]} ${embedded} embedded in an IPv6 address` : RANGE_LABELS[reason];
  const hint = PRIVATE_RANGES.has(reason)
    ? "; set ALLOW_PRIVATE_IPS on a self-hosted runner to monitor private targets"
    : "; such addresses are never monitored";
  return `refused to contact ${target}: ${what}${hint}`;
}

/**
 * Judges one IP literal against the options and returns it in canonical form, or throws
 * TargetRefusedError. `host` only names the target in the message.
 */
export function checkAddress(address: string, options: Pick<GuardOptions, "allowPrivate" | "ipv6">, host = address): ResolvedAddress {
  const c = classifyAddress(address);
  if (c.range !== "public" && !(options.allowPrivate && PRIVATE_RANGES.has(c.range))) {
    throw new TargetRefusedError(host, c.address, c.range, c.embeddedIpv4);
  }
  if (c.family === 6 && !options.ipv6) throw new TargetRefusedError(host, c.address, "ipv6_disabled");
  return { address: c.address, family: c.family };
}

const systemResolver: HostResolver = async (host, family) => {
  const found = await lookup(host, { all: true, family, verbatim: true });
  return found.map((r) => ({ address: r.address, family: r.family === 6 ? 6 : 4 }));
};

/**
 * The one gate before any user-supplied target is contacted: parses an IP literal or resolves
 * the name, judges EVERY usable address (a name with one private address is refused whole),
 * and returns the checked address so the caller connects to it and not to a second lookup,
 * which also defeats DNS rebinding. IPv6 answers are dropped when `ipv6` is false.
 */
export async function resolveAndCheck(host: string, options: GuardOptions): Promise<ResolvedAddress> {
  const bare = stripBrackets(host.trim());
  if (bare === "") throw new HostResolutionError(host, "EINVAL", "empty host name");
  if (isIpLiteral(bare)) return checkAddress(bare, options, host);

  options.signal?.throwIfAborted();
  const name = bare.endsWith(".") ? bare.slice(0, -1) : bare;
  let answers: ResolvedAddress[];
  try {
    answers = await (options.resolver ?? systemResolver)(name, options.ipv6 ? 0 : 4);
  } catch (err) {
    const code = (err as { code?: string }).code ?? "ERESOLVE";
    throw new HostResolutionError(host, code, code === "ENOTFOUND" ? "no such host (ENOTFOUND)" : (err as Error).message);
  }
  options.signal?.throwIfAborted();

  const usable = options.ipv6 ? answers : answers.filter((a) => a.family === 4);
  if (usable.length === 0) {
    throw new HostResolutionError(host, "ENODATA", options.ipv6 ? "no addresses" : "no IPv4 address");
  }
  const checked = usable.map((a) => checkAddress(a.address, options, host));
  return checked[0];
}
