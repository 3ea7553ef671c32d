import { type TLiteral, type TObject, type TSchema, type TUnion, Type } from "@sinclair/typebox";
import { browserFlowSpec } from "../runner/checks/browser-flow/browser-flow-schema.ts";
import { browserLiteSpec } from "../runner/checks/browser-lite/browser-lite-schema.ts";
import { dnsSpec } from "../runner/checks/dns/dns-schema.ts";
import { domainSpec } from "../runner/checks/domain/domain-schema.ts";
import { heartbeatSpec } from "../runner/checks/heartbeat/heartbeat-schema.ts";
import { httpSpec } from "../runner/checks/http/http-schema.ts";
import { keywordSpec } from "../runner/checks/keyword/keyword-schema.ts";
import { pingSpec } from "../runner/checks/ping/ping-schema.ts";
import { smtpSpec } from "../runner/checks/smtp/smtp-schema.ts";
import { sslSpec } from "../runner/checks/ssl/ssl-schema.ts";
import { tcpSpec } from "../runner/checks/tcp/tcp-schema.ts";
import type { CheckSpec } from "./checks/check-spec.ts";

/**
 * THE list of check types: one line per type, in picker and documentation order. Everything else
 * (type lists, OpenAPI components, the monitor form, quotas, metric names, the run registry
 * runner/checks/run-registry.gen.ts and docs/check-types.md's table) is derived from it.
 */
export const checkTypes = {
  http: httpSpec,
  keyword: keywordSpec,
  ssl: sslSpec,
  tcp: tcpSpec,
  dns: dnsSpec,
  ping: pingSpec,
  domain: domainSpec,
  smtp: smtpSpec,
  heartbeat: heartbeatSpec,
  browser_lite: browserLiteSpec,
  browser_flow: browserFlowSpec,
} as const satisfies { [T in string]: CheckSpec<T> };

type Specs = typeof checkTypes;
export type CheckType = keyof Specs;
type TypesRunningOn<R extends CheckSpec["runsOn"]> = { [K in CheckType]: Specs[K]["runsOn"] extends R ? K : never }[CheckType];
/** Standard check types: they run on every worker and runner. */
export type ExecutableCheckType = TypesRunningOn<"worker">;
/** Browser check types: they run where a browser pool offers the monitor's engine. */
export type BrowserCheckType = TypesRunningOn<"browser">;
/** Every type some worker runs (all but the inbound ones, i.e. heartbeat). */
export type RunnableCheckType = ExecutableCheckType | BrowserCheckType;

const typesRunningOn = <R extends CheckSpec["runsOn"]>(runsOn: R) =>
  (Object.keys(checkTypes) as CheckType[]).filter((t) => checkTypes[t].runsOn === runsOn) as TypesRunningOn<R>[];

export const CHECK_TYPES = Object.keys(checkTypes) as CheckType[];
export const EXECUTABLE_CHECK_TYPES: readonly ExecutableCheckType[] = typesRunningOn("worker");
export const BROWSER_CHECK_TYPES: readonly BrowserCheckType[] = typesRunningOn("browser");

const mapSpecs = <V>(pick: <K extends CheckType>(spec: Specs[K]) => V) =>
  Object.fromEntries(CHECK_TYPES.map((t) => [t, pick(checkTypes[t])])) as unknown;

/** The schema of a monitor's `config` for every check type. */
export const configSchemas = mapSpecs((s) => s.config) as { [K in CheckType]: Specs[K]["config"] };
export type ConfigSchemas = typeof configSchemas;

/** The `data` object of each check type's results (OpenAPI components <Type>Data). */
export const dataSchemas = mapSpecs((s) => s.data) as { [K in CheckType]: Specs[K]["data"] & TObject };

/** Names of the documented data fields of a type, in documentation order (export columns). */
export const dataFieldNames = (type: CheckType): string[] => Object.keys(dataSchemas[type].properties);

/** Whether results of the type have a response time: every type that runs a check; not heartbeat, whose pings are received. */
export const measuresResponseTime = (type: CheckType): boolean => checkTypes[type].runsOn !== "inbound";

/** Which plan quota a monitor of each type counts against. */
export const quotaFamilyOf = (type: CheckType): CheckSpec["quota"] => checkTypes[type].quota;

/** `{ type, config }` as a union discriminated on `type`, for validating a monitor's check settings. */
export const monitorCheckSchema = Type.Union(
  CHECK_TYPES.map((type) => Type.Object({ type: Type.Literal(type), config: configSchemas[type] as TSchema }, { additionalProperties: false })),
) as unknown as TUnion<{ [K in CheckType]: TObject<{ type: TLiteral<K>; config: ConfigSchemas[K] }> }[CheckType][]>;
