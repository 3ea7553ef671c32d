import type { Unheard } from "../domain/runners/runner-job-expiry.ts";
import type { ClaimWatch } from "../domain/runners/claim-watch.ts";
import type { Identity } from "../domain/access/identity.ts";
import type { SecretBox } from "../core/crypto/secrets.ts";
import type { Sql } from "../db/client.ts";
import type { Logger } from "../core/log.ts";
import type { ApiConfig } from "./config.ts";
import type { RateLimiter } from "./edge/rate-limiter.ts";
import type { IdentityCache } from "./edge/identity-cache.ts";
import type { Bus } from "../core/bus/index.ts";
import type { EventHub } from "./events/event-hub.ts";

/** Everything a route needs, built once per process and passed in. */
export interface ApiDeps {
  sql: Sql;
  config: ApiConfig;
  log: Logger;
  box: SecretBox;
  limiter: RateLimiter;
  identityCache: IdentityCache;
  /** The message bus (in-process or NATS); live events and job hand-off go through it. */
  bus: Bus;
  /** PUBLIC_BASE_URL, or the URL the server actually listens on; used in links. */
  publicBaseUrl: string;
  /** Recent live events of this process, for SSE resume. */
  events: EventHub;
  /**
   * Told whenever a request found the database unreachable (answered 503): the API's presence records the stretch
   * (api/presence.ts), and in the all-in-one its judges count it as blind (core/process/blind-time.ts).
   */
  databaseUnreachable: Set<() => void>;
  /** This process's runner claim long-polls and the jobs they handed out, ended with the runner's session. */
  runnerClaims: ClaimWatch;
  /**
   * When runners could not reach the API (no API process up, one that could not reach the database; this process's
   * own interruption not yet recorded too), as stretches of Date.now: a runner job's life does not run then.
   */
  runnersUnheard(): Promise<Unheard[]>;
  /** Whether the database answered recently; /readyz and the 503 path read it. */
  isReady(): Promise<boolean>;
  /** The payment provider's clock for billing (prorations): the simulator's, which /sim/advance moves; real time when unset. */
  billingClock?: () => Date;
}

/** What the edge learnt about a request before routing: the caller and their address. */
export interface RequestMeta {
  identity: Identity | null;
  ip: string;
}

export const requestMeta = new WeakMap<Request, RequestMeta>();
