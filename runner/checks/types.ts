import type { Static, TObject, TSchema } from "@sinclair/typebox";
import type { Logger } from "../../core/log.ts";
import type { GuardOptions, HostResolver } from "../../core/net-guard/index.ts";
import type { BrowserPool } from "./browser/browser-pool.ts";
import type { BrowserCheckType, ExecutableCheckType } from "../../schemas/check-types.ts";
import type { CheckData, CheckStatus } from "../../schemas/checks/check-spec.ts";

export { CheckAbortedError, CheckUnavailableError, InvalidCheckJobError } from "./check-errors.ts";
export { CHECK_STATUSES } from "../../schemas/checks/check-spec.ts";
export type { CheckData, CheckDataRecord, CheckDataValue, CheckStatus } from "../../schemas/checks/check-spec.ts";
export { BROWSER_CHECK_TYPES, CHECK_TYPES, EXECUTABLE_CHECK_TYPES } from "../../schemas/check-types.ts";
export type { BrowserCheckType, ExecutableCheckType, RunnableCheckType } from "../../schemas/check-types.ts";

export interface CheckResult {
  status: CheckStatus;
  /** Wall time of the whole check in milliseconds, two decimals. */
  duration_ms: number;
  /** What went wrong, in words, when status is not "up". */
  error?: string;
  /** Every field the check type documents in `dataFields`; null when not measured. */
  data: CheckData;
  /** Files stored with the result (browser screenshots); `data.screenshots` names them. */
  artifacts?: CheckArtifact[];
}

/** A file kept with one result, e.g. the screenshot of a failed browser check. */
export interface CheckArtifact {
  /** Unique within the result: "failure", or a flow screenshot step's name. */
  name: string;
  content_type: "image/jpeg" | "image/png";
  data: Uint8Array;
}

/** One job as the scheduler hands it to a runner. */
export interface CheckJob {
  type: ExecutableCheckType | BrowserCheckType;
  /** The monitor's `config`, validated against the type's configSchema before it runs. */
  config: unknown;
  timeoutMs: number;
  /** ALLOW_PRIVATE_IPS of the runner; always false in cloud regions. */
  allowPrivate: boolean;
  /** Whether the runner may use IPv6; always false in cloud regions. */
  ipv6: boolean;
}

/** Addresses of the outside services checks talk to, replaceable so tests can use loopback servers. */
export interface CheckEndpoints {
  /** IANA RDAP bootstrap registry for domains. Default https://data.iana.org/rdap/dns.json. */
  rdapBootstrapUrl?: string;
  /** WHOIS server to ask for every domain instead of discovering the TLD's server through IANA. */
  whoisServer?: { host: string; port: number };
  /** Server that names a TLD's WHOIS server. Default whois.iana.org:43. */
  whoisIanaServer?: { host: string; port: number };
  /** Port of the WHOIS servers IANA names. Default 43. */
  whoisPort?: number;
  /** DNS servers ("ip" or "ip:port") for dns checks whose config names no resolver. Default: the system's. */
  dnsServers?: string[];
  /** Extra trusted CA certificates (PEM), added to the system roots. */
  trustedCa?: string[];
  /** The ping binary. Default "ping" (iputils) from PATH. */
  pingPath?: string;
  /**
   * Tests only: host names the browser guard judges by the resolver's answer (a public address)
   * but connects to 127.0.0.1, so a "public" site can be served on loopback.
   */
  browserLoopbackStandIns?: string[];
}

export interface CheckContext {
  timeoutMs: number;
  /** Private-address guard options; also used for every connection a check opens. */
  guard: { allowPrivate: boolean; ipv6: boolean; resolver?: HostResolver };
  /** The caller's cancellation (runner shutdown). A check aborted this way rejects with CheckAbortedError. */
  signal?: AbortSignal;
  endpoints?: CheckEndpoints;
  log?: Logger;
  /** Warm browsers for browser checks; without it (or without the monitor's engine) they are unavailable here. */
  browsers?: BrowserPool;
}

/** What a probe sees: the deadline and caller abort merged into one signal, and the data record to fill. */
export interface ProbeContext extends CheckContext {
  signal: AbortSignal;
  /** Pre-filled with null for every documented field; a probe sets fields as it measures them. */
  data: CheckData;
  /** Guard options with the probe's signal, ready for resolveAndCheck/openConnection. */
  guardOptions: GuardOptions & { signal: AbortSignal };
  /** What the probe waits for now ("SMTP greeting (220)"): a timeout then says `no <this> within N ms`. */
  waitingFor?: string;
}

export interface ProbeOutcome {
  status: CheckStatus;
  error?: string;
}

/** One check type: a schema for the monitor's config, the data it reports and how to run it. */
export interface Check<S extends TSchema = TSchema> {
  readonly type: ExecutableCheckType | BrowserCheckType;
  readonly configSchema: S;
  /** Schema of the `data` every result carries (schemas/check-types.ts). */
  readonly dataSchema: TObject;
  /** Field name → description of every key `run` puts in `data` (from dataSchema). */
  readonly dataFields: Readonly<Record<string, string>>;
  /** Never rejects for anything the target does; rejects with CheckAbortedError when ctx.signal fires. */
  run(config: Static<S>, ctx: CheckContext): Promise<CheckResult>;
}
