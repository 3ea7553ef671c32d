import { Type, type Static } from "@sinclair/typebox";

export const DOMAIN_DEFAULTS = { warn_days: 30 } as const;

export const domainConfigSchema = Type.Object(
  {
    domain: Type.String({
      minLength: 3,
      maxLength: 253,
      pattern: "^(?=.{3,253}$)([A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z][A-Za-z0-9-]{0,62}\\.?$",
      description: "Registrable domain, e.g. example.com or example.co.uk",
    }),
    warn_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: DOMAIN_DEFAULTS.warn_days })),
  },
  { additionalProperties: false },
);
export type DomainConfig = Static<typeof domainConfigSchema>;
