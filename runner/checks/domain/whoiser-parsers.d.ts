// whoiser ships types for its network client only; its WHOIS text parser is what the domain check uses.
declare module "whoiser/src/parsers.js" {
  export function parseDomainWhois(domain: string, whois: string, ignorePrivacy?: boolean): Record<string, string | string[]>;
}
