import { dataObject, listField, msField, textField } from "../../../schemas/checks/data-fields.ts";

export const dnsDataSchema = dataObject("DnsData", {
  answers: listField(
    "Answer records as strings: A/AAAA address, CNAME/NS name, MX \"pref host\", TXT joined text, SOA \"mname rname serial refresh retry expire minimum\", CAA \"flags tag value\", SRV \"priority weight port target\"",
  ),
  rcode: textField("DNS response code as named in RFC 1035/6895: NOERROR, NXDOMAIN, SERVFAIL, REFUSED...; null when no answer came"),
  dns_ms: msField("Query time, ms"),
  resolver: textField("DNS server asked (\"ip:port\"), or \"system\" for the runner's own resolver"),
});
