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

/** The dns check type, as the registry (schemas/check-types.ts) lists it. */
export const dnsSpec = defineCheckSpec({
  type: "dns",
  label: "DNS — a record resolves (to the expected answers)",
  summary: "A DNS record resolves, optionally to the expected answers",
  runsOn: "worker",
  quota: "monitors",
  config: dnsConfigSchema,
  data: dnsDataSchema,
});
