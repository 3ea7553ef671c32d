import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface KeyPair {
  cert: string;
  key: string;
}

export interface TestPki {
  caPem: string;
  /** A leaf certificate for localhost and 127.0.0.1 signed by the test CA; negative days give an expired one. */
  leaf(days: number, names?: string[]): KeyPair;
  /** A self-signed certificate no CA vouches for. */
  selfSigned(days: number): KeyPair;
  cleanup(): void;
}

function openssl(dir: string, args: string[]): void {
  const out = Bun.spawnSync(["openssl", ...args], { cwd: dir, stderr: "pipe", stdout: "pipe" });
  if (out.exitCode !== 0) throw new Error(`openssl ${args[0]} failed: ${out.stderr.toString()}`);
}

/** Builds a throwaway CA with the openssl CLI, in a temporary folder. */
export function createTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), "wp-pki-"));
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  openssl(dir, ["req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "3650", "-subj", "/CN=Watchpost Test CA/O=Watchpost"]);
  let serial = 0;
  const read = (name: string) => readFileSync(join(dir, name), "utf8");
  return {
    caPem: read("ca.pem"),
    leaf(days, names = ["DNS:localhost", "IP:127.0.0.1"]) {
      const id = `leaf${++serial}`;
      writeFileSync(join(dir, `${id}.ext`), `subjectAltName=${names.join(",")}\n`);
      openssl(dir, ["req", ...ec, "-keyout", `${id}.key`, "-out", `${id}.csr`, "-subj", "/CN=localhost"]);
      openssl(dir, ["x509", "-req", "-in", `${id}.csr`, "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", String(1000 + serial), "-out", `${id}.pem`, "-days", String(days), "-extfile", `${id}.ext`]);
      return { cert: read(`${id}.pem`), key: read(`${id}.key`) };
    },
    selfSigned(days) {
      const id = `self${++serial}`;
      openssl(dir, ["req", "-x509", ...ec, "-keyout", `${id}.key`, "-out", `${id}.pem`, "-days", String(days), "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"]);
      return { cert: read(`${id}.pem`), key: read(`${id}.key`) };
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
