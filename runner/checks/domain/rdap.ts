import { httpRequest } from "../shared/http-client.ts";
import type { ProbeContext } from "../types.ts";
import { DomainNotFoundError, type Registration } from "./registration.ts";

const IANA_RDAP_BOOTSTRAP = "https://data.iana.org/rdap/dns.json";
const BOOTSTRAP_TTL_MS = 24 * 3600_000;
const ACCEPT = "application/rdap+json, application/json;q=0.9";

interface Bootstrap {
  expires: number;
  servers: Map<string, string>;
}
const bootstraps = new Map<string, Bootstrap>();

/**
 * Looks the domain up over RDAP (RFC 9224 bootstrap, RFC 9083 response). Returns null when the
 * bootstrap registry names no RDAP server for its TLD.
 */
export async function rdapLookup(domain: string, ctx: ProbeContext): Promise<Registration | null> {
  const server = await rdapServerFor(domain, ctx);
  if (!server) return null;
  const res = await getJson(`${server.endsWith("/") ? server : `${server}/`}domain/${encodeURIComponent(domain)}`, ctx, 1024 * 1024);
  if (res.status === 404) throw new DomainNotFoundError(domain, "rdap");
  if (res.status < 200 || res.status > 299) throw new Error(`RDAP server ${server} answered ${res.status}`);
  return readRegistration(res.json as RdapDomain | null);
}

async function rdapServerFor(domain: string, ctx: ProbeContext): Promise<string | null> {
  const url = ctx.endpoints?.rdapBootstrapUrl ?? IANA_RDAP_BOOTSTRAP;
  let bootstrap = bootstraps.get(url);
  if (!bootstrap || bootstrap.expires < Date.now()) {
    const res = await getJson(url, ctx, 4 * 1024 * 1024);
    if (res.status < 200 || res.status > 299) throw new Error(`RDAP bootstrap ${url} answered ${res.status}`);
    bootstrap = { expires: Date.now() + BOOTSTRAP_TTL_MS, servers: indexServices(res.json) };
    bootstraps.set(url, bootstrap);
  }
  // Longest matching suffix first: "example.co.uk" tries "co.uk", then "uk".
  const labels = domain.split(".");
  for (let i = 1; i < labels.length; i++) {
    const server = bootstrap.servers.get(labels.slice(i).join("."));
    if (server) return server;
  }
  return null;
}

function indexServices(json: unknown): Map<string, string> {
  const services = (json as { services?: unknown } | null)?.services;
  if (!Array.isArray(services)) throw new Error("RDAP bootstrap has no services list");
  const servers = new Map<string, string>();
  for (const entry of services) {
    const [tlds, urls] = entry as [string[], string[]];
    if (!Array.isArray(tlds) || !Array.isArray(urls) || urls.length === 0) continue;
    const url = urls.find((u) => u.startsWith("https:")) ?? urls[0];
    for (const tld of tlds) servers.set(tld.toLowerCase(), url);
  }
  return servers;
}

async function getJson(url: string, ctx: ProbeContext, bodyLimit: number): Promise<{ status: number; json: unknown }> {
  const res = await httpRequest({
    url,
    method: "GET",
    headers: { accept: ACCEPT },
    followRedirects: true,
    maxRedirects: 3,
    tlsVerify: true,
    keepBody: true,
    bodyLimit,
    extraCa: ctx.endpoints?.trustedCa,
    guard: ctx.guardOptions,
  });
  if (res.statusCode < 200 || res.statusCode > 299) return { status: res.statusCode, json: null };
  try {
    return { status: res.statusCode, json: JSON.parse(res.body?.toString("utf8") ?? "") };
  } catch {
    throw new Error(`${url} did not answer with JSON`);
  }
}

interface RdapEntity {
  roles?: string[];
  vcardArray?: [string, Array<[string, unknown, string, unknown]>];
  handle?: string;
}
interface RdapDomain {
  events?: Array<{ eventAction?: string; eventDate?: string }>;
  entities?: RdapEntity[];
}

function readRegistration(doc: RdapDomain | null): Registration {
  const event = doc?.events?.find((e) => e.eventAction === "expiration" || e.eventAction === "registration expiration");
  const expiry = event?.eventDate ? new Date(event.eventDate) : null;
  const registrar = doc?.entities?.find((e) => e.roles?.includes("registrar"));
  const fn = registrar?.vcardArray?.[1]?.find((prop) => prop[0] === "fn")?.[3];
  return {
    expiry: expiry && !Number.isNaN(expiry.getTime()) ? expiry : null,
    registrar: typeof fn === "string" && fn ? fn : (registrar?.handle ?? null),
  };
}
