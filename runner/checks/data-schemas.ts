import { Type, type TObject } from "@sinclair/typebox";
import { dnsDataSchema } from "./dns/dns-data.ts";
import { domainDataSchema } from "./domain/domain-data.ts";
import { heartbeatDataSchema } from "./heartbeat/heartbeat-data.ts";
import { httpDataSchema } from "./http/http-data.ts";
import { keywordDataSchema } from "./keyword/keyword-data.ts";
import { pingDataSchema } from "./ping/ping-data.ts";
import { sslDataSchema } from "./ssl/ssl-data.ts";
import { tcpDataSchema } from "./tcp/tcp-data.ts";
import type { CheckType } from "./types.ts";

/** Browser results are produced by the browser engine; their fields are described there. */
const browserData = (title: string) =>
  Type.Object({}, { additionalProperties: true, title, description: "Fields reported by the browser check engine (see docs/check-types.md)" });

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
  browser_lite: browserData("BrowserLiteData"),
  browser_flow: browserData("BrowserFlowData"),
} satisfies Record<CheckType, TObject>;

/** Names of the documented data fields of a type, in documentation order (export columns). */
export const dataFieldNames = (type: CheckType): string[] => Object.keys(dataSchemas[type].properties);
