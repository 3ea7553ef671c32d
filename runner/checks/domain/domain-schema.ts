import { Type } from "@sinclair/typebox";
import { dataObject, intField, nullable, textField } from "../../../schemas/checks/data-fields.ts";
import { defineCheckSpec } from "../../../schemas/checks/check-spec.ts";

export const DOMAIN_DEFAULTS = { warn_days: 30 } as const;

const domainConfigSchema = Type.Object(
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

const domainDataSchema = dataObject("DomainData", {
  domain_days_remaining: intField("Whole days until the registration expires (negative once expired)"),
  expiry_date: textField("Registration expiry, ISO 8601"),
  registrar: textField("Registrar's name as the registry gives it"),
  source: nullable(Type.Union([Type.Literal("rdap"), Type.Literal("whois")]), "Where the expiry came from: \"rdap\" or \"whois\""),
});

/** The domain check type, as the registry (schemas/check-types.ts) lists it. */
export const domainSpec = defineCheckSpec({
  type: "domain",
  label: "Domain expiry — the registration does not lapse",
  summary: "A domain's registration (RDAP or WHOIS) does not lapse soon",
  runsOn: "worker",
  quota: "monitors",
  config: domainConfigSchema,
  data: domainDataSchema,
});
