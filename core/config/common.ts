import { Type } from "@sinclair/typebox";

/** Variables every role reads. Each entry point spreads these into its own schema. */
export const commonEnv = {
  DATABASE_URL: Type.Optional(Type.String({ pattern: "^postgres(ql)?://", description: "PostgreSQL URL; unset starts the embedded database" })),
  NATS_URL: Type.Optional(
    Type.String({
      pattern: "^(nats|tls)://[^,\\s]+(,(nats|tls)://[^,\\s]+)*$",
      description: "NATS URL, or the URLs of several servers of one cluster comma-separated; unset uses the in-process bus",
    }),
  ),
  NATS_REPLICAS: Type.Integer({
    minimum: 1,
    maximum: 5,
    default: 1,
    description: "copies JetStream keeps of the JOBS and RESULTS streams, 1-5: 3 on a three-server cluster; the same on every process",
  }),
  NATS_PREFIX: Type.String({ default: "", pattern: "^[A-Za-z0-9_-]*$", description: "namespace of the bus streams and subjects on a shared NATS server; letters, digits, _ and -" }),
  DATA_DIR: Type.String({ default: "./.data", description: "embedded database and local state" }),
  LOG_LEVEL: Type.Union(
    [
      Type.Literal("fatal"),
      Type.Literal("error"),
      Type.Literal("warn"),
      Type.Literal("info"),
      Type.Literal("debug"),
      Type.Literal("trace"),
      Type.Literal("silent"),
    ],
    { default: "info", description: "one of fatal, error, warn, info, debug, trace, silent" },
  ),
  LOG_FORMAT: Type.Union([Type.Literal("auto"), Type.Literal("json"), Type.Literal("pretty")], {
    default: "auto",
    description: "json, pretty, or auto (pretty when stdout is a terminal, else json)",
  }),
  SECRET_KEY: Type.Optional(
    Type.String({ minLength: 32, description: "at least 32 characters; encrypts secrets at rest and signs tokens; generated into DATA_DIR when unset" }),
  ),
  SECRET_KEY_PREVIOUS: Type.Optional(
    Type.String({
      pattern: "^[^,]{32,}(,[^,]{32,})*$",
      description: "earlier SECRET_KEY values, comma-separated, while rotating it: what they encrypted or signed is still read; bun run cli secret-key:rotate re-encrypts with SECRET_KEY",
    }),
  ),
  EMBEDDED_PG_PORT: Type.Integer({ minimum: 1, maximum: 65535, default: 54329, description: "port of the embedded PostgreSQL, 1-65535" }),
};

/** The /metrics and /healthz listener of every server role; the api (and all-in-one) never serve /metrics on PORT. */
export const metricsEnv = {
  METRICS_PORT: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535, description: "serve /metrics and /healthz on this port, 0-65535; unset serves none" })),
  METRICS_HOST: Type.String({ default: "127.0.0.1", description: "listen address of the metrics server" }),
};
