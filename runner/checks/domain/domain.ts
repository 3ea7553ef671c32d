import { defineCheck } from "../shared/define-check.ts";
import { describeError } from "../shared/describe-error.ts";
import { daysUntil } from "../shared/timing.ts";
import { DOMAIN_DEFAULTS, domainSpec } from "./domain-schema.ts";
import { rdapLookup } from "./rdap.ts";
import { DomainNotFoundError, type Registration } from "./registration.ts";
import { whoisLookup } from "./whois.ts";

export const domainCheck = defineCheck(domainSpec, {
  async probe(config, ctx) {
    const domain = config.domain.toLowerCase().replace(/\.$/, "");
    const problems: string[] = [];
    let found: Registration | null = null;
    let source: "rdap" | "whois" = "rdap";
    try {
      found = await rdapLookup(domain, ctx);
      if (!found) problems.push("RDAP: no RDAP server for this TLD");
      else if (!found.expiry) problems.push("RDAP: no expiration event");
    } catch (err) {
      if (err instanceof DomainNotFoundError) return { status: "down", error: err.message };
      problems.push(`RDAP: ${describeError(err)}`);
    }
    if (!found?.expiry) {
      ctx.signal.throwIfAborted();
      try {
        const viaWhois = await whoisLookup(domain, ctx);
        found = { expiry: viaWhois.expiry, registrar: viaWhois.registrar ?? found?.registrar ?? null };
        source = "whois";
        if (!viaWhois.expiry) problems.push("WHOIS: no expiry date in the answer");
      } catch (err) {
        if (err instanceof DomainNotFoundError) return { status: "down", error: err.message };
        problems.push(`WHOIS: ${describeError(err)}`);
      }
    }
    ctx.data.registrar = found?.registrar ?? null;
    if (!found?.expiry) return { status: "down", error: `no expiry date found for ${domain} (${problems.join("; ")})` };

    const days = daysUntil(found.expiry);
    Object.assign(ctx.data, { domain_days_remaining: days, expiry_date: found.expiry.toISOString(), source });
    const warnDays = config.warn_days ?? DOMAIN_DEFAULTS.warn_days;
    if (found.expiry.getTime() <= Date.now()) return { status: "down", error: `${domain} expired on ${found.expiry.toISOString()}` };
    if (days <= warnDays) return { status: "degraded", error: `${domain} expires in ${days} days (warn_days ${warnDays})` };
    return { status: "up" };
  },
});
