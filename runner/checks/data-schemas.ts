import type { TObject } from "@sinclair/typebox";
import { browserFlowDataSchema } from "./browser-flow/browser-flow-data.ts";
import { browserLiteDataSchema } from "./browser-lite/browser-lite-data.ts";
import { dnsDataSchema } from "./dns/dns-data.ts";
import { domainDataSchema } from "./domain/domain-data.ts";
import { heartbeatDataSchema } from "./heartbeat/heartbeat-data.ts";
import { httpDataSchema } from "./http/http-data.ts";
import { keywordDataSchema } from "./keyword/keyword-data.ts";
import { pingDataSchema } from "./ping/ping-data.ts";
import { sslDataSchema } from "./ssl/ssl-data.ts";
import { tcpDataSchema } from "./tcp/tcp-data.ts";
import type { CheckType } from "./types.ts";

/**
 * The `data` object of each check type's results (OpenAPI components <Type>Data). Importing this
 * file loads no check implementation. Every check's `dataFields` is derived from its entry here.
 */
export const dataSchemas = {
  http: httpDataSchema,
  keyword: keywordDataSchema,
  ssl: sslDataSchema,
  tcp: tcpDataSchema,
  dns: dnsDataSchema,
  ping: pingDataSchema,
  domain: domainDataSchema,
  heartbeat: heartbeatDataSchema,
  browser_lite: browserLiteDataSchema,
  browser_flow: browserFlowDataSchema,
} satisfies Record<CheckType, TObject>;

/** Names of the documented data fields of a type, in documentation order (export columns). */
export const dataFieldNames = (type: CheckType): string[] => Object.keys(dataSchemas[type].properties);
