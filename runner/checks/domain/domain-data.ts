import { Type } from "@sinclair/typebox";
import { dataObject, intField, nullable, textField } from "../../../schemas/checks/data-fields.ts";

export const domainDataSchema = dataObject("DomainData", {
  domain_days_remaining: intField("Whole days until the registration expires (negative once expired)"),
  expiry_date: textField("Registration expiry, ISO 8601"),
  registrar: textField("Registrar's name as the registry gives it"),
  source: nullable(Type.Union([Type.Literal("rdap"), Type.Literal("whois")]), "Where the expiry came from: \"rdap\" or \"whois\""),
});
