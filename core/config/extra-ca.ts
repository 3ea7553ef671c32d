import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { Type } from "@sinclair/typebox";
import { ConfigError } from "./parse-env.ts";

/**
 * Extra CAs the process trusts. The runtime reads the file itself for every TLS connection; we declare
 * it so it is checked at start (a wrong path would otherwise be ignored) and so browser checks, whose
 * Chromium does not read it, learn that it is set.
 */
export const extraCaEnv = {
  NODE_EXTRA_CA_CERTS: Type.Optional(
    Type.String({
      minLength: 1,
      description: "PEM file of extra CA certificates to trust (an internal CA) on top of the system's; must exist and hold at least one certificate",
    }),
  ),
};

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Throws a ConfigError naming NODE_EXTRA_CA_CERTS unless it is unset or a readable file with at least one PEM certificate. */
export function checkExtraCaCerts(config: { NODE_EXTRA_CA_CERTS?: string }): void {
  const path = config.NODE_EXTRA_CA_CERTS;
  if (path === undefined) return;
  const refuse = (why: string) =>
    new ConfigError(`Invalid environment variable NODE_EXTRA_CA_CERTS=${JSON.stringify(path)}: ${why} (${extraCaEnv.NODE_EXTRA_CA_CERTS.description})`);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw refuse(code === "ENOENT" ? "no such file" : code === "EISDIR" ? "a directory, not a file" : `cannot read the file (${code ?? (err as Error).message})`);
  }
  const parses = (pem: string) => {
    try {
      new X509Certificate(pem);
      return true;
    } catch {
      return false;
    }
  };
  if (!(text.match(PEM_CERTIFICATE) ?? []).some(parses)) throw refuse("the file holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
}
