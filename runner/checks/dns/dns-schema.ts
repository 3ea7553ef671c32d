import { Type, type Static } from "@sinclair/typebox";
import { dataObject, listField, msField, textField } from "../../../schemas/checks/data-fields.ts";
import { defineCheckSpec } from "../../../schemas/checks/check-spec.ts";

const dnsConfigSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 253, pattern: "^[A-Za-z0-9._*-]+\\.?$", description: "Name to query, e.g. example.com or _sip._tcp.example.com (a trailing dot is allowed)" }),
    record_type: Type.Union([
      Type.Literal("A"),
      Type.Literal("AAAA"),
      Type.Literal("CNAME"),
      Type.Literal("MX"),
      Type.Literal("TXT"),
      Type.Literal("NS"),
      Type.Literal("SOA"),
      Type.Literal("CAA"),
      Type.Literal("SRV"),
    ]),
    resolver: Type.Optional(
      Type.String({
        maxLength: 64,
        pattern: "^([0-9.]+(:[0-9]{1,5})?|[0-9A-Fa-f:]+|\\[[0-9A-Fa-f:]+\\](:[0-9]{1,5})?)$",
        description: 'DNS server to ask: "ip", "ip:port" or "[ipv6]:port"; default the runner\'s resolver',
      }),
    ),
    expected: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), { minItems: 1, maxItems: 50 })),
  },
  { additionalProperties: false },
);
export type DnsConfig = Static<typeof dnsConfigSchema>;
export type DnsRecordType = DnsConfig["record_type"];

const dnsDataSchema = dataObject("DnsData", {
  answers: listField(
    "Answer records as strings: A/AAAA address, CNAME/NS name, MX \"pref host\", TXT joined text, SOA \"mname rname serial refresh retry expire minimum\", CAA \"flags tag value\", SRV \"priority weight port target\"",
  ),
  rcode: textField("DNS response code as named in RFC 1035/6895: NOERROR, NXDOMAIN, SERVFAIL, REFUSED...; null when no answer came"),
  dns_ms: msField("Query time, ms"),
  resolver: textField("DNS server asked (\"ip:port\"), or \"system\" for the runner's own resolver"),
});

const isIpv4 = (text: string): boolean => {
  // Decimal forms the resolver reads as one address: 127.0.0.1, and the short 127.1 (the last part fills the rest).
  const parts = text.split(".");
  if (parts.length > 4 || parts.some((p) => !/^[0-9]{1,10}$/.test(p))) return false;
  const last = Number(parts.pop());
  return parts.every((p) => Number(p) <= 255) && last < 256 ** (4 - parts.length);
};

const isIpv6 = (text: string): boolean => {
  const halves = text.split("::");
  if (halves.length > 2) return false;
  const groups = halves.map((h) => (h === "" ? [] : h.split(":")));
  if (groups.flat().some((g) => !/^[0-9A-Fa-f]{1,4}$/.test(g))) return false;
  const count = groups.flat().length;
  return halves.length === 2 ? count <= 7 : count === 8;
};

/** What the schema's pattern lets through but no server is: an address that does not parse, a port out of range. */
function resolverIssues(config: { resolver?: string }): Array<{ path: string; message: string }> {
  const text = config.resolver;
  if (text === undefined) return [];
  const m = /^\[([^\]]+)\](?::([0-9]+))?$/.exec(text) ?? /^([^:]+)(?::([0-9]+))?$/.exec(text) ?? [text, text, undefined];
  const [, host = "", port] = m;
  const bracketed = text.startsWith("[");
  if (!(bracketed || host.includes(":") ? isIpv6(host) : isIpv4(host))) {
    return [{ path: "resolver", message: `"${text}" is not an IP address: give the DNS server as "ip", "ip:port" or "[ipv6]:port"` }];
  }
  if (port !== undefined && !(Number(port) >= 1 && Number(port) <= 65535)) return [{ path: "resolver", message: `port ${port} is out of range (1-65535) in "${text}"` }];
  return [];
}

/** The dns check type, as the registry (schemas/check-types.ts) lists it. */
export const dnsSpec = defineCheckSpec({
  type: "dns",
  label: "DNS — a record resolves (to the expected answers)",
  summary: "A DNS record resolves, optionally to the expected answers",
  runsOn: "worker",
  quota: "monitors",
  config: dnsConfigSchema,
  data: dnsDataSchema,
  validate: resolverIssues,
});
