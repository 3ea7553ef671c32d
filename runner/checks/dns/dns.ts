import { getServers } from "node:dns";
import type * as packet from "dns-packet";
import { checkAddress, classifyAddress, type GuardOptions } from "../../../core/net-guard/index.ts";
import { defineCheck } from "../shared/define-check.ts";
import { ms } from "../shared/timing.ts";
import { formatDnsServer, queryDns, type DnsServer } from "../../../core/net/dns-client.ts";
import { type DnsRecordType, dnsSpec } from "./dns-schema.ts";

type Data<T extends packet.Answer["type"]> = Extract<packet.Answer, { type: T; data: unknown }>["data"];

/** Each answer written as one string, in zone-file order without quotes. */
const FORMATS: Readonly<Record<DnsRecordType, (data: never) => string>> = {
  A: (d: Data<"A">) => d,
  AAAA: (d: Data<"AAAA">) => d,
  CNAME: (d: Data<"CNAME">) => d,
  NS: (d: Data<"NS">) => d,
  MX: (d: Data<"MX">) => `${d.preference} ${d.exchange}`,
  TXT: (d: Data<"TXT">) => (Array.isArray(d) ? d : [d]).map((chunk) => chunk.toString()).join(""),
  SOA: (d: Data<"SOA">) => `${d.mname} ${d.rname} ${d.serial} ${d.refresh} ${d.retry} ${d.expire} ${d.minimum}`,
  CAA: (d: Data<"CAA">) => `${d.flags} ${d.tag} ${d.value}`,
  SRV: (d: Data<"SRV">) => `${d.priority} ${d.weight} ${d.port} ${d.target}`,
};

export const dnsCheck = defineCheck(dnsSpec, {
  async probe(config, ctx) {
    const servers = config.resolver
      ? [parseServer(config.resolver, ctx.guardOptions)]
      : (ctx.endpoints?.dnsServers ?? getServers()).map((s) => parseServer(s));
    ctx.data.resolver = config.resolver || ctx.endpoints?.dnsServers ? servers.map(formatDnsServer).join(",") : "system";

    const started = performance.now();
    const reply = await queryDns(servers, config.name.replace(/\.$/, ""), config.record_type, ctx.signal);
    ctx.data.dns_ms = ms(performance.now() - started);
    ctx.data.rcode = reply.rcode;
    const format = FORMATS[config.record_type] as (data: unknown) => string;
    const answers = reply.answers.filter((a) => a.type === config.record_type).map((a) => format((a as { data: unknown }).data));
    ctx.data.answers = answers;

    if (reply.rcode === "NXDOMAIN") return { status: "down", error: `${config.name} does not exist (NXDOMAIN)` };
    if (reply.rcode !== "NOERROR") return { status: "down", error: `the DNS server answered ${reply.rcode} for ${config.name} ${config.record_type}` };
    if (answers.length === 0) return { status: "down", error: `no ${config.record_type} records for ${config.name}` };
    const missing = (config.expected ?? []).filter((want) => !answers.some((got) => sameAnswer(config.record_type, got, want)));
    if (missing.length) return { status: "down", error: `expected ${config.record_type} values missing: ${missing.join(", ")}` };
    return { status: "up" };
  },
});

/** Both sides compared without case and without a trailing dot, except TXT which is compared exactly. */
function sameAnswer(type: DnsRecordType, got: string, want: string): boolean {
  if (type === "TXT") return got === want;
  const norm = (s: string) => s.trim().toLowerCase().replace(/\.$/, "");
  return norm(got) === norm(want);
}

/**
 * Reads "ip", "ip:port" or "[ipv6]:port". A resolver from the monitor's config is a
 * user-supplied target, so it goes through the guard like any other.
 */
function parseServer(text: string, guard?: GuardOptions): DnsServer {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(text) ?? /^([^:]+)(?::(\d+))?$/.exec(text) ?? [text, text, undefined];
  const { address, family } = guard ? checkAddress(m[1], guard, text) : classifyAddress(m[1]);
  return { address, family, port: m[2] ? Number(m[2]) : 53 };
}
