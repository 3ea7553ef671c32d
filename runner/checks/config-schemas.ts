import { Type, type Static } from "@sinclair/typebox";
import { browserFlowConfigSchema } from "./browser-flow/browser-flow-schema.ts";
import { browserLiteConfigSchema } from "./browser-lite/browser-lite-schema.ts";
import { dnsConfigSchema } from "./dns/dns-schema.ts";
import { domainConfigSchema } from "./domain/domain-schema.ts";
import { heartbeatConfigSchema } from "./heartbeat/heartbeat-schema.ts";
import { httpConfigSchema } from "./http/http-schema.ts";
import { keywordConfigSchema } from "./keyword/keyword-schema.ts";
import { pingConfigSchema } from "./ping/ping-schema.ts";
import { sslConfigSchema } from "./ssl/ssl-schema.ts";
import { tcpConfigSchema } from "./tcp/tcp-schema.ts";
import type { CheckType } from "./types.ts";

/**
 * The schema of a monitor's `config` for every check type. Importing this file loads no
 * check implementation, so the API can validate monitors without undici, dns or ping.
 */
export const configSchemas = {
  http: httpConfigSchema,
  keyword: keywordConfigSchema,
  ssl: sslConfigSchema,
  tcp: tcpConfigSchema,
  dns: dnsConfigSchema,
  ping: pingConfigSchema,
  domain: domainConfigSchema,
  heartbeat: heartbeatConfigSchema,
  browser_lite: browserLiteConfigSchema,
  browser_flow: browserFlowConfigSchema,
} satisfies Record<CheckType, unknown>;

export type ConfigSchemas = typeof configSchemas;
export type CheckConfig<T extends CheckType> = Static<ConfigSchemas[T]>;

const typed = <T extends CheckType>(type: T) =>
  Type.Object({ type: Type.Literal(type), config: configSchemas[type] }, { additionalProperties: false });

/** `{ type, config }` as a union discriminated on `type`, for validating a monitor's check settings. */
export const monitorCheckSchema = Type.Union([
  typed("http"),
  typed("keyword"),
  typed("ssl"),
  typed("tcp"),
  typed("dns"),
  typed("ping"),
  typed("domain"),
  typed("heartbeat"),
  typed("browser_lite"),
  typed("browser_flow"),
]);
export type MonitorCheck = Static<typeof monitorCheckSchema>;
