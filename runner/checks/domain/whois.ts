import { parseDomainWhois } from "whoiser/src/parsers.js";
import { openConnection } from "../shared/open-connection.ts";
import type { ProbeContext } from "../types.ts";
import { DomainNotFoundError, type Registration } from "./registration.ts";

const IANA_WHOIS = { host: "whois.iana.org", port: 43 };
const MAX_ANSWER_BYTES = 256 * 1024;
const SERVER_TTL_MS = 24 * 3600_000;
const NOT_FOUND = /no match for|not found|no data found|no entries found|status:\s*(free|available)|no object found/i;

const tldServers = new Map<string, { host: string; expires: number }>();

/** WHOIS (port 43) lookup: the TLD's server from IANA unless one is configured, then its answer parsed by whoiser. */
export async function whoisLookup(domain: string, ctx: ProbeContext): Promise<Registration> {
  const server = ctx.endpoints?.whoisServer ?? { host: await whoisServerFor(domain, ctx), port: ctx.endpoints?.whoisPort ?? 43 };
  const answer = await whoisQuery(server, domain, ctx);
  const fields = parseDomainWhois(domain, answer, true);
  const expiry = parseWhoisDate(String(fields["Expiry Date"] ?? ""));
  if (!expiry && NOT_FOUND.test(answer)) throw new DomainNotFoundError(domain, "whois");
  const registrar = fields.Registrar;
  return { expiry, registrar: typeof registrar === "string" && registrar ? registrar : null };
}

async function whoisServerFor(domain: string, ctx: ProbeContext): Promise<string> {
  const tld = domain.slice(domain.lastIndexOf(".") + 1);
  const cached = tldServers.get(tld);
  if (cached && cached.expires > Date.now()) return cached.host;
  const answer = await whoisQuery(ctx.endpoints?.whoisIanaServer ?? IANA_WHOIS, tld, ctx);
  const host = /^(?:refer|whois):\s*(\S+)/im.exec(answer)?.[1];
  if (!host) throw new Error(`IANA names no WHOIS server for .${tld}`);
  tldServers.set(tld, { host, expires: Date.now() + SERVER_TTL_MS });
  return host;
}

/** Sends one query line and reads the answer until the server closes the connection. */
async function whoisQuery(server: { host: string; port: number }, query: string, ctx: ProbeContext): Promise<string> {
  const { socket } = await openConnection({ host: server.host, port: server.port, guard: ctx.guardOptions });
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const done = (err?: Error) => {
      ctx.signal.removeEventListener("abort", onAbort);
      socket.destroy();
      if (err) reject(err);
      else resolve(Buffer.concat(chunks).toString("utf8"));
    };
    const onAbort = () => done(new Error("aborted"));
    ctx.signal.addEventListener("abort", onAbort, { once: true });
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      bytes += chunk.length;
      if (bytes >= MAX_ANSWER_BYTES) done();
    });
    socket.once("end", () => done());
    socket.once("close", () => done());
    socket.once("error", (err) => done(err));
    socket.write(`${query}\r\n`);
  });
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/** Reads the date formats registries use: ISO 8601, yyyy.mm.dd, dd.mm.yyyy, dd-Mon-yyyy. */
export function parseWhoisDate(text: string): Date | null {
  let m = /(\d{4})[-./](\d{2})[-./](\d{2})(?:[T ](\d{2}):(\d{2}):(\d{2}))?/.exec(text);
  if (m) return utc(+m[1], +m[2], +m[3], +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0));
  m = /(\d{2})[-./](\d{2})[-./](\d{4})/.exec(text);
  if (m) return utc(+m[3], +m[2], +m[1]);
  m = /(\d{1,2})[- ]([A-Za-z]{3})[A-Za-z]*[- ](\d{4})/.exec(text);
  if (m && MONTHS.includes(m[2].toLowerCase())) return utc(+m[3], MONTHS.indexOf(m[2].toLowerCase()) + 1, +m[1]);
  const parsed = text.trim() ? new Date(text.trim()) : null;
  return parsed && !Number.isNaN(parsed.getTime()) ? parsed : null;
}

function utc(year: number, month: number, day: number, h = 0, min = 0, s = 0): Date | null {
  const date = new Date(Date.UTC(year, month - 1, day, h, min, s));
  return Number.isNaN(date.getTime()) || month < 1 || month > 12 || day < 1 || day > 31 ? null : date;
}
