import crypto from "node:crypto";
import type net from "node:net";
import tls from "node:tls";

/** The guard proxy's own certificate: one self-signed P-256 key per process, never written to disk. */
interface ProxyIdentity {
  secureContext: tls.SecureContext;
  /** base64 SHA-256 of the key's SubjectPublicKeyInfo, as Chromium's --ignore-certificate-errors-spki-list takes it. */
  spkiSha256: string;
}

let identity: ProxyIdentity | undefined;

const derLength = (n: number) => (n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]));
const der = (tag: number, ...parts: Buffer[]) => {
  const body = Buffer.concat(parts);
  return Buffer.concat([Buffer.from([tag]), derLength(body.length), body]);
};
const utcTime = (d: Date) => der(0x17, Buffer.from(`${d.toISOString().replace(/[-:T]/g, "").slice(2, 14)}Z`));

/** A minimal self-signed X.509 v3 certificate (node:crypto signs but cannot build one). */
function selfSigned(): ProxyIdentity {
  const { privateKey, publicKey } = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
  const spki = publicKey.export({ type: "spki", format: "der" });
  const ecdsaSha256 = der(0x30, der(0x06, Buffer.from("2a8648ce3d040302", "hex")));
  const name = der(0x30, der(0x31, der(0x30, der(0x06, Buffer.from("550403", "hex")), der(0x0c, Buffer.from("Watchpost guard proxy")))));
  const serial = crypto.randomBytes(8);
  serial[0] = serial[0]! & 0x7f;
  const now = Date.now();
  const validity = der(0x30, utcTime(new Date(now - 86_400_000)), utcTime(new Date(now + 10 * 365 * 86_400_000)));
  const tbs = der(0x30, der(0xa0, der(0x02, Buffer.from([2]))), der(0x02, serial), ecdsaSha256, name, validity, name, spki);
  const cert = der(0x30, tbs, ecdsaSha256, der(0x03, Buffer.from([0]), crypto.sign("sha256", tbs, privateKey)));
  const pem = `-----BEGIN CERTIFICATE-----\n${cert.toString("base64").replace(/.{64}/g, "$&\n")}\n-----END CERTIFICATE-----\n`;
  return {
    secureContext: tls.createSecureContext({ cert: pem, key: privateKey.export({ type: "pkcs8", format: "pem" }) }),
    spkiSha256: crypto.createHash("sha256").update(spki).digest("base64"),
  };
}

function proxyIdentity(): ProxyIdentity {
  identity ??= selfSigned();
  return identity;
}

/**
 * The Chromium switch that accepts the guard proxy's certificate and nothing else: only this
 * process holds its key, so no server Chromium could reach any other way presents it.
 */
export function chromiumTrustsGuardProxy(): string {
  return `--ignore-certificate-errors-spki-list=${proxyIdentity().spkiSha256}`;
}

/** Whether the first bytes a client sent into a tunnel are a TLS handshake (a ClientHello record). */
export const isTlsHandshake = (first: Buffer) => first[0] === 0x16 && first[1] === 0x03;

let caCache: { extra: readonly string[]; ca: string[] } | undefined;

function caFor(extra: readonly string[] | undefined): string[] | undefined {
  if (!extra?.length) return undefined;
  if (caCache?.extra !== extra) caCache = { extra, ca: [...tls.rootCertificates, ...extra] };
  return caCache.ca;
}

/**
 * Verifies the target's certificate on `upstream` as the http check does (the runtime's roots,
 * which include NODE_EXTRA_CA_CERTS, plus `extraCa`; the host name; the dates), and only then
 * answers the browser's handshake on `client` with the proxy's certificate and relays the
 * plaintext between the two. HTTP/1.1 only, on both sides, so the bytes relayed mean the same.
 * Rejects with the upstream TLS error; the caller closes both sockets.
 */
export function relayTls(client: net.Socket, upstream: net.Socket, servername: string | undefined, extraCa: readonly string[] | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const secure = tls.connect({ socket: upstream, servername, ca: caFor(extraCa), rejectUnauthorized: true, ALPNProtocols: ["http/1.1"] });
    secure.once("error", reject);
    secure.once("secureConnect", () => {
      secure.off("error", reject);
      secure.on("error", () => secure.destroy());
      const browserSide = new tls.TLSSocket(client, { isServer: true, secureContext: proxyIdentity().secureContext, ALPNProtocols: ["http/1.1"] });
      browserSide.on("error", () => browserSide.destroy());
      browserSide.on("close", () => secure.destroy());
      secure.on("close", () => browserSide.destroy());
      browserSide.pipe(secure);
      secure.pipe(browserSide);
      client.resume();
      resolve();
    });
  });
}
