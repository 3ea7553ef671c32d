import { getServers } from "node:dns";
import { isIP } from "node:net";
import { type DnsServer, queryDns } from "../../core/net/dns-client.ts";
import { customDomainsAllowed } from "../../billing/suspension.ts";
import { isUniqueViolation } from "../../db/client.ts";
import { conflict, entitlementRequired, notFound, validationError } from "../../core/errors.ts";
import { randomToken } from "../../core/ids.ts";
import { markDomainVerified, setDomain, type StatusPageRow } from "../../db/queries/status-pages.ts";
import { type Ctx, getPage } from "./service.ts";

/**
 * DNS servers asked for the verification TXT record: the system's unless set
 * (STATUS_PAGE_DNS_SERVERS in the API config; tests point it at a loopback DNS server).
 */
export const domainResolver: { servers: string[] | null } = { servers: null };

const HOST_RE = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

const txtRecordName = (domain: string) => `_watchpost-verify.${domain}`;
const txtRecordValue = (token: string) => `watchpost-verify=${token}`;

export function txtRecordOf(page: Pick<StatusPageRow, "custom_domain" | "domain_token">) {
  return page.custom_domain && page.domain_token ? { type: "TXT" as const, name: txtRecordName(page.custom_domain), value: txtRecordValue(page.domain_token) } : null;
}

async function assertAllowed(ctx: Ctx): Promise<void> {
  if (!(await customDomainsAllowed(ctx.sql, ctx.actor.orgId))) {
    throw entitlementRequired("custom_domains", "Custom status-page domains need a paid plan");
  }
}

/** Sets (or replaces) the page's custom domain; it answers only after the TXT record is verified. */
export async function setCustomDomain(ctx: Ctx, pageId: string, domain: string): Promise<StatusPageRow> {
  await getPage(ctx, pageId);
  const host = domain.trim().toLowerCase().replace(/\.$/, "");
  if (!HOST_RE.test(host) || isIP(host)) throw validationError([{ path: "body.domain", message: "a host name such as status.example.com" }]);
  await assertAllowed(ctx);
  try {
    const row = await setDomain(ctx.sql, ctx.actor.orgId, pageId, host, randomToken(18));
    if (!row) throw notFound("Status page");
    return row;
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`The domain ${host} is used by another status page`, { field: "domain" });
    throw err;
  }
}

export async function removeCustomDomain(ctx: Ctx, pageId: string): Promise<StatusPageRow> {
  await getPage(ctx, pageId);
  return (await setDomain(ctx.sql, ctx.actor.orgId, pageId, null, null))!;
}

function parseServer(s: string): DnsServer {
  const m = /^\[?([^\]]+?)\]?(?::(\d+))?$/.exec(s.includes(":") && !s.includes("[") && s.split(":").length > 2 ? `[${s}]` : s);
  const address = m?.[1] ?? s;
  return { address, port: Number(m?.[2] ?? 53), family: isIP(address) === 6 ? 6 : 4 };
}

/** The TXT strings published at `name` (each record's strings joined, as RFC 7208 does). */
async function lookupTxt(name: string, timeoutMs = 5000): Promise<string[]> {
  const servers = (domainResolver.servers ?? getServers()).map(parseServer);
  const answer = await queryDns(servers, name, "TXT", AbortSignal.timeout(timeoutMs));
  return answer.answers
    .filter((a) => a.type === "TXT")
    .map((a) => {
      const data = (a as { data: Buffer | Buffer[] | string }).data;
      return Array.isArray(data) ? data.map((d) => d.toString()).join("") : data.toString();
    });
}

/** Checks the TXT record; 409 CONFLICT with what was found when it is missing or wrong. */
export async function verifyCustomDomain(ctx: Ctx, pageId: string): Promise<StatusPageRow> {
  const page = await getPage(ctx, pageId);
  const record = txtRecordOf(page);
  if (!record) throw validationError([{ path: "domain", message: "set a custom domain first (POST /status-pages/:id/domain)" }]);
  await assertAllowed(ctx);
  let found: string[] = [];
  try {
    found = await lookupTxt(record.name);
  } catch (err) {
    throw conflict(`Could not look up ${record.name}: ${(err as Error).message}`, { expected: record });
  }
  if (!found.includes(record.value)) throw conflict(`The TXT record ${record.name} does not hold the expected value yet`, { expected: record, found });
  return (await markDomainVerified(ctx.sql, ctx.actor.orgId, pageId))!;
}
