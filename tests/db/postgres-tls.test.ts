// Managed PostgreSQL: TLS settings come from DATABASE_URL (sslmode, sslrootcert) for the server's
// client and for dbmate. A throwaway cluster with ssl=on and a self-signed CA, reachable only over TLS.
import { afterAll, beforeAll, expect, it } from "bun:test";
import { execFileSync } from "node:child_process";
import { appendFileSync, chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "../../core/log.ts";
import { createSql } from "../../db/client.ts";
import { startEmbeddedPostgres } from "../../db/embedded.ts";
import { startPostmaster, type Postmaster } from "../../db/postmaster.ts";
import { migrate } from "../../db/migrate.ts";
import { freePort } from "../support/free-port.ts";

const dir = mkdtempSync(join(tmpdir(), "wp-pg-tls-"));
chmodSync(dir, 0o755);
const certs = join(dir, "certs");
let port = 0;
let db: Postmaster | null = null;

const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: certs, stdio: "pipe" });

function makeCa(name: string): void {
  openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", `/CN=${name}`, "-keyout", `${name}.key`, "-out", `${name}.crt`);
}

const url = (query: string) => `postgres://postgres:watchpost@localhost:${port}/watchpost?${query}`;

beforeAll(async () => {
  port = freePort();
  execFileSync("mkdir", ["-p", certs]);
  makeCa("ca");
  makeCa("other-ca");
  openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", "server.key", "-out", "server.csr");
  writeFileSync(join(certs, "san.ext"), "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
  openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2", "-extfile", "san.ext", "-out", "server.crt");
  chmodSync(certs, 0o755);
  for (const f of ["ca.crt", "other-ca.crt"]) chmodSync(join(certs, f), 0o644);

  // Initialise the cluster (and its watchpost database), stop it, turn TLS on and refuse every connection without it.
  const first = await startEmbeddedPostgres(dir, port, silentLogger);
  await first.stop();
  const pgdata = join(dir, "postgres");
  for (const f of ["server.crt", "server.key"]) {
    writeFileSync(join(pgdata, f), readFileSync(join(certs, f)));
    chmodSync(join(pgdata, f), 0o600);
    if (process.getuid?.() === 0) {
      const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
      chownSync(join(pgdata, f), id("-u"), id("-g"));
    }
  }
  appendFileSync(join(pgdata, "postgresql.conf"), "\nssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\n");
  const hba = readFileSync(join(pgdata, "pg_hba.conf"), "utf8");
  writeFileSync(join(pgdata, "pg_hba.conf"), `hostnossl all all all reject\n${hba}`);
  db = await startPostmaster(pgdata, port, () => {});
}, 120_000);

afterAll(async () => {
  await db?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function sslInUse(u: string): Promise<boolean> {
  const sql = createSql(u, { max: 1 });
  try {
    const [row] = await sql`select ssl from pg_stat_ssl where pid = pg_backend_pid()`;
    return Boolean(row?.ssl);
  } finally {
    await sql.end({ timeout: 1 });
  }
}

it("the cluster refuses connections without TLS (sslmode=disable)", async () => {
  await expect(sslInUse(url("sslmode=disable"))).rejects.toThrow(/no encryption|reject/i);
}, 30_000);

it("migrates (dbmate) and queries (postgres.js) through sslmode=require", async () => {
  await migrate(url("sslmode=require"));
  expect(await sslInUse(url("sslmode=require"))).toBe(true);
  const sql = createSql(url("sslmode=require"), { max: 1 });
  const [row] = await sql`select count(*)::int as n from schema_migrations`;
  await sql.end();
  expect(row!.n).toBeGreaterThan(0);
}, 120_000);

it("migrates and queries through sslmode=verify-full with the CA file (sslrootcert)", async () => {
  const u = url(`sslmode=verify-full&sslrootcert=${encodeURIComponent(join(certs, "ca.crt"))}`);
  // lock: false runs dbmate alone, so dbmate's own TLS connection is what is proven here.
  await migrate(u, { lock: false });
  await migrate(u);
  expect(await sslInUse(u)).toBe(true);
}, 120_000);

it("verify-ca checks the chain against the CA file; verify-full also reaches an IP address its certificate names", async () => {
  const ca = encodeURIComponent(join(certs, "ca.crt"));
  expect(await sslInUse(`postgres://postgres:watchpost@127.0.0.1:${port}/watchpost?sslmode=verify-full&sslrootcert=${ca}`)).toBe(true);
  expect(await sslInUse(url(`sslmode=verify-ca&sslrootcert=${ca}`))).toBe(true);
  const other = encodeURIComponent(join(certs, "other-ca.crt"));
  await expect(sslInUse(url(`sslmode=verify-ca&sslrootcert=${other}`))).rejects.toThrow(/certificate/i);
}, 30_000);

it("a wrong CA fails verify-full with a clear error, for the server's client and for dbmate", async () => {
  const u = url(`sslmode=verify-full&sslrootcert=${encodeURIComponent(join(certs, "other-ca.crt"))}`);
  const client = await migrate(u).then(() => null, (e: unknown) => e as Error);
  expect(client?.message).toMatch(/TLS.*verify-full.*other-ca\.crt.*certificate/is);
  // dbmate alone. Its --wait retries a failing connection for a minute first; its own variable shortens that here.
  process.env.DBMATE_WAIT_TIMEOUT = "3s";
  try {
    const dbmate = await migrate(u, { lock: false }).then(() => null, (e: unknown) => e as Error);
    expect(dbmate?.message).toMatch(/certificate/i);
  } finally {
    delete process.env.DBMATE_WAIT_TIMEOUT;
  }
}, 60_000);

it("a missing CA file is named in the error", () => {
  expect(() => createSql(url("sslmode=verify-full&sslrootcert=/nonexistent/ca.pem"))).toThrow(/sslrootcert.*\/nonexistent\/ca\.pem/);
});
