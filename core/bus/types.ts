import type { Logger } from "../log.ts";

/** The queue of one cloud region or of one self-hosted runner. */
export type JobSubject = `jobs.region.${string}` | `jobs.runner.${string}`;
/** `results.<orgId>.<monitorId>` */
export type ResultSubject = `results.${string}.${string}`;
/** Subject filter of a results consumer: `results.>` (default), `results.<orgId>.>`, ... */
type ResultFilter = `results.${string}`;
/**
 * `events.<orgId>` to publish; `events.<orgId>` or `events.*` to subscribe. `workers.<region>.<workerId>`
 * carries a cloud worker's presence beats (core NATS, like events).
 */
export type EventSubject = `events.${string}` | `workers.${string}`;
/** Request/reply subjects (core NATS, never stored): `rpc.run-now.region.<region>`, `rpc.reply.<jobId>`, ... */
export type RpcSubject = `rpc.${string}`;

export interface ServeOptions {
  /** Queue group: one server of the group answers each request. Without one, this server always answers too. */
  queue?: string;
}

export interface RequestOptions {
  timeoutMs: number;
}

/** Nobody serves the subject: the request was not delivered to anyone. */
export class NoResponderError extends Error {
  constructor(readonly subject: string) {
    super(`no responder for ${subject}`);
    this.name = "NoResponderError";
  }
}

/** A server took the request but did not answer within the timeout. */
export class RequestTimeoutError extends Error {
  constructor(
    readonly subject: string,
    readonly timeoutMs: number,
  ) {
    super(`request on ${subject} timed out after ${timeoutMs} ms`);
    this.name = "RequestTimeoutError";
  }
}

/**
 * The bus could not be reached (a NATS server down, restarting or not answering): the operation may succeed if tried
 * again shortly. `cause` is the client's own error. The API answers it 503 SERVICE_UNAVAILABLE, never 500.
 */
export class BusUnavailableError extends Error {
  constructor(
    readonly operation: string,
    options?: { cause?: unknown },
  ) {
    super(`the message bus is unavailable (${operation})`, options);
    this.name = "BusUnavailableError";
  }
}

/** The server's handler threw: its message, and its AppError code, status and details when it had them. */
export class RemoteError extends Error {
  constructor(
    message: string,
    readonly code?: string,
    readonly details?: Record<string, unknown>,
    readonly status?: number,
  ) {
    super(message);
    this.name = "RemoteError";
  }
}

/** What a server answers on the wire: the value, or the error the handler threw. */
export type RpcReply<T> = { ok: true; value: T } | { ok: false; error: { message: string; code?: string; details?: Record<string, unknown>; status?: number } };

export type RpcHandler<Req, Res> = (body: Req, subject: string) => Promise<Res> | Res;

/** Jobs are de-duplicated by `id` within the duplicate window. */
export interface JobMessage {
  id: string;
}

/** Results are de-duplicated by `id` within the duplicate window: use the job's id. */
export interface ResultMessage {
  id: string;
}

export interface PublishAck {
  /** Stream sequence; for a duplicate, the sequence of the message it duplicates. */
  seq: number;
  duplicate: boolean;
}

/**
 * One delivery of a stored message. Settle it once with ack, nak or term; until then
 * it is redelivered after the consumer's ack deadline (up to its max deliveries).
 */
export interface Delivery<T> {
  /** Subject without the bus prefix, e.g. `jobs.region.eu-west`. */
  readonly subject: string;
  readonly data: T;
  /** 1 on the first delivery. */
  readonly deliveryCount: number;
  /** Publish time, ms since the epoch. */
  readonly publishedAt: number;
  /** Opaque; settles this delivery later through `ackJob`/`nakJob`/... from any bus client. */
  readonly token: string;
  ack(): void;
  /** Redeliver after `delayMs` (immediately when omitted). */
  nak(delayMs?: number): void;
  /** Restart the ack deadline. */
  inProgress(): void;
  /** Never redeliver; on the jobs queue this removes the job. */
  term(): void;
}

export interface JobConsumerOptions {
  /** Ack deadline; default `BusOptions.jobs.ackWaitMs`. */
  ackWaitMs?: number;
  /** Deliveries before a job is given up; default `BusOptions.jobs.maxDeliveries`. */
  maxDeliveries?: number;
}

export interface FetchJobsOptions extends JobConsumerOptions {
  /**
   * Ends the fetch at once when it aborts: it resolves with [], takes no more jobs and hands back (naks) at once any it
   * had taken, so none waits out its ack deadline and the next fetch gets them on their next delivery.
   */
  signal?: AbortSignal;
}

export interface ConsumeJobsOptions extends JobConsumerOptions {
  /**
   * Jobs handled at once by this client, not counting handlers that released their slot (those bound
   * themselves); default 1.
   */
  maxInFlight?: number;
}

export interface ConsumeResultsOptions {
  /** Largest batch handed to the handler; default 100. */
  batchSize?: number;
  /** A batch is handed over at most this long after its first delivery arrived; default 200. */
  maxWaitMs?: number;
  /** Default `results.>`. All clients of one durable must pass the same filter. */
  filter?: ResultFilter;
  /** Default `BusOptions.results.ackWaitMs`; must cover maxWaitMs plus the handler's time. */
  ackWaitMs?: number;
  /** Default `BusOptions.results.maxDeliveries` (0 = unlimited). */
  maxDeliveries?: number;
}

/** A job handler's place among its consumer's `maxInFlight`. */
export interface JobSlot {
  /**
   * Gives the place back before the handler ends (its scarce part is done): the consumer takes the next job
   * while this handler finishes, and still settles this job when it does. Later calls do nothing.
   */
  release(): void;
}

/** Resolving acks every delivery the handler left unsettled; throwing naks them with a backoff. */
export type JobHandler<T> = (job: Delivery<T>, slot: JobSlot) => Promise<void> | void;
export type BatchHandler<T> = (batch: Delivery<T>[]) => Promise<void> | void;
export type EventHandler<T> = (event: T, subject: string) => void;

export interface ConsumerHandle {
  /** Stops pulling, hands back deliveries not yet given to the handler, waits for running handlers. */
  stop(): Promise<void>;
}

export interface TopologyOptions {
  /** Job consumers to create now (otherwise created on first consume/fetch). */
  jobSubjects?: JobSubject[];
  /** Durable results consumers to create now, so they see results published before they first run. */
  resultDurables?: { name: string; filter?: ResultFilter }[];
}

export interface PurgeJobsOptions {
  /** Also delete the subject's consumer (a revoked runner); it is recreated on next use. */
  dropConsumer?: boolean;
}

export interface Bus {
  /** `port`: a role in a worker thread reaching the all-in-one's in-process bus through a MessagePort. */
  readonly kind: "memory" | "nats" | "port";

  /** Creates or updates streams (and the named consumers); idempotent and safe to race. */
  ensureTopology(opts?: TopologyOptions): Promise<void>;

  publishJob<T extends JobMessage>(subject: JobSubject, job: T): Promise<PublishAck>;
  /**
   * Continuous work-queue consumer. Its durable name is derived from the subject: a
   * work-queue stream allows one consumer per subject, shared by every client.
   */
  consumeJobs<T extends JobMessage>(subject: JobSubject, opts: ConsumeJobsOptions, handler: JobHandler<T>): Promise<ConsumerHandle>;
  /**
   * Long poll: resolves as soon as at least one job is claimed (with up to `max` that are
   * ready), or with [] after `expiresMs` (at least 1000 on NATS) or at once when `opts.signal` aborts. Settle later by token.
   */
  fetchJobs<T extends JobMessage>(subject: JobSubject, max: number, expiresMs: number, opts?: FetchJobsOptions): Promise<Delivery<T>[]>;
  /** Settle a job by `Delivery.token`; false when its consumer no longer exists. */
  ackJob(token: string): Promise<boolean>;
  nakJob(token: string, delayMs?: number): Promise<boolean>;
  extendJob(token: string): Promise<boolean>;
  termJob(token: string): Promise<boolean>;
  /** Removes the subject's queued jobs; returns how many. */
  purgeJobs(subject: JobSubject, opts?: PurgeJobsOptions): Promise<number>;
  /**
   * Deletes the subject's consumer but keeps its jobs: every job it had handed out and not
   * settled is ready again at once (a revoked runner's claims). Old tokens no longer settle.
   */
  resetJobConsumer(subject: JobSubject): Promise<void>;
  /** Jobs stored for the subject: waiting, in flight, or given up until they age out. */
  pendingJobs(subject: JobSubject): Promise<number>;
  /** The same for each subject the filter (with wildcards) matches that holds any: one read for every queue. */
  pendingJobsBySubject(filter: JobSubject): Promise<Map<JobSubject, number>>;

  publishResult<T extends ResultMessage>(subject: ResultSubject, result: T): Promise<PublishAck>;
  /** Durable batch consumer; clients with the same durable share its messages, each durable sees all. */
  consumeResults<T extends ResultMessage>(durable: string, opts: ConsumeResultsOptions, handler: BatchHandler<T>): Promise<ConsumerHandle>;
  /**
   * Results a durable has not acked yet: not yet delivered, plus delivered and unsettled (given-up
   * ones excluded); 0 when the durable does not exist. Ingest's backlog; a drain waits for 0.
   */
  pendingResults(durable: string): Promise<number>;

  /** Fire-and-forget live event (no persistence). */
  publishEvent<T>(subject: EventSubject, event: T): void;
  /** `events.*` receives every organisation's events. Returns the unsubscribe function. */
  subscribeEvents<T>(subject: EventSubject, handler: EventHandler<T>): () => void;

  /**
   * Sends one request and waits for one answer (core NATS request/reply, nothing stored). Rejects with
   * NoResponderError at once when nobody serves the subject, RequestTimeoutError after `timeoutMs`,
   * RemoteError (message, code, details, status) when the handler threw.
   */
  request<Req, Res>(subject: RpcSubject, body: Req, opts: RequestOptions): Promise<Res>;
  /** Answers requests on `subject` (wildcards allowed) until the handle is stopped or the bus closes. */
  serve<Req, Res>(subject: RpcSubject, opts: ServeOptions, handler: RpcHandler<Req, Res>): Promise<ConsumerHandle>;

  /** Stops this client's consumers and subscriptions, flushes pending acks, disconnects. */
  close(): Promise<void>;
}

export interface QueueSettings {
  ackWaitMs: number;
  /** 0 = unlimited. */
  maxDeliveries: number;
  duplicateWindowMs: number;
  maxAgeMs: number;
}

export interface BusOptions {
  log?: Logger;
  /** Namespace for stream names and subjects: "" → streams JOBS/RESULTS, subjects jobs.>, results.>, events.>. */
  prefix?: string;
  jobs?: Partial<QueueSettings>;
  results?: Partial<QueueSettings>;
}
