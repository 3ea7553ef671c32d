import { Type, type Static } from "@sinclair/typebox";


export const dnsConfigSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 253, pattern: "^[A-Za-z0-9._*-]+\\.?$" }),
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
