import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import postgres from "postgres";
import { STALL_DEFAULTS, type StallOptions, watchStalls } from "./stall-watch.ts";

export type Sql = postgres.Sql<{}>;

export interface SqlOptions {
  max?: number;
  idleTimeoutSeconds?: number;
  /** Give up connections whose query hears nothing back (db/stall-watch.ts); false: never. */
  stall?: StallOptions | false;
}

/**
 * The one way code opens PostgreSQL: bigint as number, timestamps as Date, quiet notices, and a query that hears
 * nothing back on a path that drops packets failed within about 20 s (`CONNECTION_STALLED`) instead of 15 minutes.
 */
export function createSql(url: string, { max = 10, idleTimeoutSeconds = 30, stall = {} }: SqlOptions = {}): Sql {
  const tls = tlsFromUrl(url);
  const sql = pool(tls, max, idleTimeoutSeconds);
  if (stall === false) return sql;
  const timeoutMs = stall.probeTimeoutMs ?? STALL_DEFAULTS.probeTimeoutMs;
  const stop = watchStalls(
    sql,
    () => postgres(tls.url, { ssl: tls.ssl, max: 1, connect_timeout: timeoutMs / 1000, fetch_types: false, prepare: false, onnotice: () => {}, connection: { application_name: "watchpost-stall-probe" } }) as unknown as Sql,
    stall,
  );
  const end = sql.end.bind(sql);
  return Object.assign(sql, { end: (options?: { timeout?: number }) => (stop(), end(options)) });
}

function pool(tls: { url: string; ssl: false | "prefer" | TlsOptions }, max: number, idleTimeoutSeconds: number): Sql {
  return postgres(tls.url, {
    ssl: tls.ssl,
    max,
    idle_timeout: idleTimeoutSeconds,
    connect_timeout: 10,
    // postgres.js waits up to 20 s between reconnects and queues queries meanwhile; capped, a request
    // during an outage fails (503) within about half a second instead of hanging.
    backoff: (retries: number) => (0.5 + Math.random() / 2) * Math.min(3 ** retries / 100, 0.5),
    onnotice: () => {},
    types: { bigint: postgres.BigInt },
    transform: { undefined: null },
    connection: { application_name: "watchpost" },
  }) as unknown as Sql;
}

/** Runs `fn` in one transaction; the handle it gets works with every query function. */
export function withTx<T>(sql: Sql, fn: (tx: Sql) => Promise<T>): Promise<T> {
  const handle = sql as unknown as { begin?: Sql["begin"]; savepoint?: (cb: (tx: unknown) => Promise<T>) => Promise<T> };
  if (handle.begin) return sql.begin((tx) => fn(tx as unknown as Sql)) as Promise<T>;
  // Already inside a transaction: nest with a savepoint so an inner failure rolls back only its part.
  return handle.savepoint!((tx) => fn(tx as Sql));
}

/**
 * Runs `fn`'s reads in one read-only snapshot (REPEATABLE READ): figures read by several queries agree with each other
 * even while writes land. Inside a transaction already, `fn` runs in it as it is.
 */
export function inSnapshot<T>(sql: Sql, fn: (tx: Sql) => Promise<T>): Promise<T> {
  const handle = sql as unknown as { begin?: (options: string, cb: (tx: unknown) => Promise<T>) => Promise<T> };
  if (!handle.begin) return fn(sql);
  return handle.begin("isolation level repeatable read read only", (tx) => fn(tx as Sql));
}

/** True for a unique-constraint violation, optionally on one named constraint. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint_name?: string };
  return e?.code === "23505" && (!constraint || e.constraint_name === constraint);
}

/**
 * PostgreSQL unreachable, restarting or shutting down: worth retrying shortly (the API answers 503). A connection reset
 * or broken under a query (ECONNRESET, EPIPE) is the server going away mid-query, as in a fast shutdown; a connection
 * given up for hearing nothing back (CONNECTION_STALLED, db/stall-watch.ts) is a path that drops packets.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return ["ECONNREFUSED", "ECONNRESET", "EPIPE", "CONNECTION_STALLED", "CONNECTION_CLOSED", "CONNECTION_ENDED", "CONNECTION_DESTROYED", "CONNECT_TIMEOUT", "57P01", "57P02", "57P03"].includes(code ?? "");
}

const SSL_MODES = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"] as const;
type SslMode = (typeof SSL_MODES)[number];
type TlsOptions = { ca?: string; cert?: string; key?: string; host?: string; servername?: string; rejectUnauthorized?: boolean; checkServerIdentity?: () => undefined };

/**
 * TLS settings of a DATABASE_URL, read as libpq (and dbmate) read them: sslmode (no sslmode: no TLS),
 * sslrootcert (a CA file, or "system"), sslcert/sslkey (a client certificate). The parameters are
 * removed from the URL postgres.js gets, which would send them to the server as settings.
 */
export function tlsFromUrl(url: string): { url: string; ssl: false | "prefer" | TlsOptions } {
  const u = new URL(url);
  const param = (name: string) => {
    const value = u.searchParams.get(name) ?? undefined;
    u.searchParams.delete(name);
    return value;
  };
  const ssl_ = param("ssl"); // postgres.js's own spelling: ssl=true|false
  const mode = (param("sslmode") ?? (ssl_ === "true" ? "require" : ssl_ === "false" ? "disable" : ssl_) ?? "disable") as SslMode;
  const rootcert = param("sslrootcert");
  const cert = param("sslcert");
  const key = param("sslkey");
  if (!SSL_MODES.includes(mode)) throw new Error(`DATABASE_URL: sslmode=${mode} is not one of ${SSL_MODES.join(", ")}`);
  const read = (name: string, path: string | undefined) => {
    if (!path || path === "system") return undefined;
    try {
      return readFileSync(path, "utf8");
    } catch (err) {
      throw new Error(`DATABASE_URL: ${name}=${path} cannot be read (${(err as Error).message})`);
    }
  };
  const clientCert = { ...(cert ? { cert: read("sslcert", cert) } : {}), ...(key ? { key: read("sslkey", key) } : {}) };
  const ca = read("sslrootcert", rootcert);
  // Like libpq: a CA file makes require verify the chain (verify-ca); sslrootcert=system means verify-full.
  const effective: SslMode = rootcert === "system" ? "verify-full" : mode === "require" && ca ? "verify-ca" : mode;
  const host = u.hostname.replace(/^\[|\]$/g, "");
  let ssl: false | "prefer" | TlsOptions;
  if (effective === "disable") ssl = false;
  else if (effective === "allow" || effective === "prefer") ssl = "prefer";
  else if (effective === "require") ssl = { rejectUnauthorized: false, ...clientCert };
  else if (effective === "verify-ca") ssl = { ca, rejectUnauthorized: true, checkServerIdentity: () => undefined, ...clientCert };
  else ssl = { ca, rejectUnauthorized: true, host, ...(isIP(host) ? {} : { servername: host }), ...clientCert };
  return { url: u.toString(), ssl };
}

/** A TLS failure to the database, told with the settings that caused it (else the error unchanged). */
export function explainTlsError(err: unknown, url: string): unknown {
  const e = err as { code?: string; message?: string };
  const tlsCodes = /CERT|SELF_SIGNED|UNABLE_TO_|HOSTNAME|ERR_TLS|ERR_SSL|DEPTH_ZERO/;
  if (!e?.code || !tlsCodes.test(e.code)) return err;
  const u = new URL(url);
  const settings = ["sslmode", "sslrootcert"].map((k) => u.searchParams.has(k) && `${k}=${u.searchParams.get(k)}`).filter(Boolean).join(" ");
  const wrapped = new Error(`TLS to PostgreSQL at ${u.hostname}:${u.port || 5432} failed (${settings}): ${e.message} [${e.code}] — check that sslrootcert is the CA that signed the server's certificate and the host name matches it`);
  return Object.assign(wrapped, { code: e.code, cause: err });
}
