import postgres from "postgres";

export type Sql = postgres.Sql<{}>;

export interface SqlOptions {
  max?: number;
  idleTimeoutSeconds?: number;
}

/** The one way code opens PostgreSQL: bigint as number, timestamps as Date, quiet notices. */
export function createSql(url: string, { max = 10, idleTimeoutSeconds = 30 }: SqlOptions = {}): Sql {
  return postgres(url, {
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

/** True for a unique-constraint violation, optionally on one named constraint. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint_name?: string };
  return e?.code === "23505" && (!constraint || e.constraint_name === constraint);
}

/** PostgreSQL unreachable, restarting or shutting down: worth retrying shortly (the API answers 503). */
export function isDatabaseUnavailable(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return ["ECONNREFUSED", "CONNECTION_CLOSED", "CONNECTION_ENDED", "CONNECTION_DESTROYED", "CONNECT_TIMEOUT", "57P01", "57P02", "57P03"].includes(code ?? "");
}
