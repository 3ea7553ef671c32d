/** What a registry says about a domain's registration. */
export interface Registration {
  expiry: Date | null;
  registrar: string | null;
}

/** The registry answered that the domain is not registered. Authoritative: no fallback is tried. */
export class DomainNotFoundError extends Error {
  override readonly name = "DomainNotFoundError";
  constructor(
    readonly domain: string,
    readonly source: "rdap" | "whois",
  ) {
    super(`${domain} is not registered (${source === "rdap" ? "RDAP answered 404" : "WHOIS found no match"})`);
  }
}
