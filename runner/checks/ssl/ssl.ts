import tls, { type PeerCertificate, type TLSSocket } from "node:tls";
import { isIpLiteral, stripBrackets } from "../../../core/net-guard/index.ts";
import { defineCheck } from "../shared/define-check.ts";
import { openConnection } from "../shared/open-connection.ts";
import { daysUntil } from "../shared/timing.ts";
import type { ProbeOutcome } from "../types.ts";
import { SSL_DEFAULTS, sslSpec } from "./ssl-schema.ts";

const ALTNAME_INVALID = "ERR_TLS_CERT_ALTNAME_INVALID";

export const sslCheck = defineCheck(sslSpec, {
  async probe(config, ctx) {
    const host = stripBrackets(config.host);
    const name = config.sni ?? host;
    const conn = await openConnection({
      host: config.host,
      port: config.port ?? SSL_DEFAULTS.port,
      guard: ctx.guardOptions,
      // Verify ourselves below, so an expired or untrusted certificate is still read and reported.
      tls: { servername: config.sni ?? (isIpLiteral(host) ? undefined : host), rejectUnauthorized: false, extraCa: ctx.endpoints?.trustedCa },
      measurements: ctx.data,
      progress: ctx,
    });
    const socket = conn.socket as TLSSocket;
    const cert = socket.getPeerCertificate(false);
    const verifyError = socket.authorized ? null : String(socket.authorizationError ?? "UNKNOWN");
    socket.destroy();
    if (!cert || !cert.valid_to) return { status: "down", error: "the server presented no certificate" };

    const validTo = new Date(cert.valid_to);
    const validFrom = new Date(cert.valid_from);
    const chainValid = verifyError === null || verifyError === ALTNAME_INVALID;
    const hostnameValid = tls.checkServerIdentity(name, cert) === undefined;
    const days = daysUntil(validTo);
    Object.assign(ctx.data, {
      ssl_days_remaining: days,
      valid_from: validFrom.toISOString(),
      valid_to: validTo.toISOString(),
      issuer: formatName(cert.issuer),
      subject: formatName(cert.subject),
      sans: parseSans(cert.subjectaltname),
      fingerprint_sha256: cert.fingerprint256,
      serial: cert.serialNumber,
      chain_valid: chainValid,
      hostname_valid: hostnameValid,
    });
    return judge({ validFrom, validTo, days, chainValid, hostnameValid, verifyError, name, warnDays: config.warn_days ?? SSL_DEFAULTS.warn_days });
  },
});

function judge(c: {
  validFrom: Date;
  validTo: Date;
  days: number;
  chainValid: boolean;
  hostnameValid: boolean;
  verifyError: string | null;
  name: string;
  warnDays: number;
}): ProbeOutcome {
  const now = Date.now();
  if (c.validTo.getTime() <= now) return { status: "down", error: `certificate expired on ${c.validTo.toISOString()}` };
  if (c.validFrom.getTime() > now) return { status: "down", error: `certificate is not valid before ${c.validFrom.toISOString()}` };
  if (!c.chainValid) return { status: "down", error: `certificate chain is not trusted (${c.verifyError})` };
  if (!c.hostnameValid) return { status: "down", error: `certificate does not cover ${c.name}` };
  if (c.days <= c.warnDays) {
    return { status: "degraded", error: `certificate expires in ${c.days} days on ${c.validTo.toISOString()} (warn_days ${c.warnDays})` };
  }
  return { status: "up" };
}

const NAME_ORDER = ["CN", "OU", "O", "L", "ST", "C"];

function formatName(name: PeerCertificate["subject"] | undefined): string | null {
  if (!name) return null;
  const entries = Object.entries(name as unknown as Record<string, string | string[]>);
  entries.sort(([a], [b]) => rank(a) - rank(b));
  const parts = entries.flatMap(([key, value]) => (Array.isArray(value) ? value : [value]).map((v) => `${key}=${v}`));
  return parts.length ? parts.join(", ") : null;
}

function rank(key: string): number {
  const i = NAME_ORDER.indexOf(key);
  return i === -1 ? NAME_ORDER.length : i;
}

function parseSans(text: string | undefined): string[] {
  if (!text) return [];
  return text.split(", ").map((entry) => entry.slice(entry.indexOf(":") + 1).trim());
}
