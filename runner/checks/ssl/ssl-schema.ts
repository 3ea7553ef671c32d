import { Type, type Static } from "@sinclair/typebox";
import { hostSchema } from "../../../schemas/checks/schema-parts.ts";

export const SSL_DEFAULTS = { port: 443, warn_days: 14 } as const;

export const sslConfigSchema = Type.Object(
  {
    host: hostSchema,
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, default: SSL_DEFAULTS.port })),
    sni: Type.Optional(Type.String({ minLength: 1, maxLength: 253, pattern: "^[A-Za-z0-9._-]+$" })),
    warn_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: SSL_DEFAULTS.warn_days })),
  },
  { additionalProperties: false },
);
export type SslConfig = Static<typeof sslConfigSchema>;
