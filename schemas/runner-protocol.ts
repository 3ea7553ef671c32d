import { type Static, Type } from "@sinclair/typebox";

/**
 * Payloads of the runner protocol (docs/runners.md). After the handshake each body travels
 * inside a session payload; these schemas check what comes out of it.
 */
export const RUNNER_TOKEN_PREFIX = "rt_";
const BROWSERS = ["none", "chromium", "firefox", "webkit", "all"] as const;
/** A heartbeat missed three times over makes a runner offline. */
export const OFFLINE_AFTER_BEATS = 3;
/** Requests one runner may make per minute (claims at POLL_INTERVAL_MS ≥ 1 s, heartbeats, result batches). */
export const RUNNER_RATE_LIMIT_PER_MINUTE = 1200;
/** Longest claim long poll the API holds open. */
export const MAX_CLAIM_WAIT_MS = 30_000;
export const SESSION_TTL_SECONDS = 86_400;

const Capabilities = Type.Object({
  browsers: Type.Array(Type.Union([Type.Literal("chromium"), Type.Literal("firefox"), Type.Literal("webkit")]), { maxItems: 3 }),
  concurrency: Type.Integer({ minimum: 1, maximum: 100 }),
});

const Report = {
  version: Type.String({ minLength: 1, maxLength: 64 }),
  name: Type.String({ minLength: 1, maxLength: 200 }),
  region: Type.String({ minLength: 1, maxLength: 200 }),
  capabilities: Capabilities,
  heartbeat_interval_ms: Type.Integer({ minimum: 5000, maximum: 3_600_000 }),
};

/** POST /runner/session, plain JSON: the only body that is not inside a session payload. */
export const SessionRequest = Type.Object(
  {
    ...Report,
    /** false only when the runner runs with ALLOW_UNENCRYPTED_SESSION=true. */
    encrypted: Type.Boolean(),
    /** Raw X25519 public key, base64url; required when encrypted. */
    runner_public_key: Type.Optional(Type.String({ minLength: 43, maxLength: 44 })),
  },
  { additionalProperties: false },
);
export type SessionRequest = Static<typeof SessionRequest>;

export interface SessionResponse {
  session_id: string;
  runner_id: string;
  encrypted: boolean;
  server_public_key: string | null;
  expires_at: string;
  /** Sealed s2r with seq 0: `{ session_id, runner_id }`; proves both sides derived the same key. */
  confirm: { session_id: string; seq: number; nonce: string; ciphertext: string } | null;
}

/** A claimed job's handle: the bus token wrapped with the runner and job it belongs to, signed by the API. */
const Claim = Type.String({ minLength: 10, maxLength: 4096 });

export const HeartbeatRequest = Type.Object(
  { ...Report, in_flight: Type.Array(Claim, { maxItems: 100 }) },
  { additionalProperties: false },
);
export type HeartbeatRequest = Static<typeof HeartbeatRequest>;
export interface HeartbeatResponse {
  suspended: boolean;
  extended: number;
  /** Claims the API could not extend any more (revoked consumer, job redelivered). */
  lost: string[];
}

export const ClaimRequest = Type.Object(
  { max: Type.Integer({ minimum: 1, maximum: 100 }), wait_ms: Type.Integer({ minimum: 0, maximum: MAX_CLAIM_WAIT_MS }) },
  { additionalProperties: false },
);
export type ClaimRequest = Static<typeof ClaimRequest>;

/** A job as the runner receives it: secrets already merged into `config`, `secrets_enc` null. */
export interface ClaimedJob {
  claim: string;
  job: {
    id: string;
    org_id: string;
    monitor_id: string;
    location: string;
    due_at: number;
    expires_at: number;
    type: string;
    config: Record<string, unknown>;
    timeout_ms: number;
  };
}
export interface ClaimResponse {
  jobs: ClaimedJob[];
}

/** Screenshots one result may carry, and the size of each (base64 of at most 512 KiB). */
const MAX_RESULT_ARTIFACTS = 10;
const MAX_ARTIFACT_BASE64 = 699_052;

export const RunnerArtifact = Type.Object(
  {
    name: Type.String({ pattern: "^[a-z0-9][a-z0-9_-]{0,39}$" }),
    content_type: Type.Union([Type.Literal("image/jpeg"), Type.Literal("image/png")]),
    data_base64: Type.String({ minLength: 4, maxLength: MAX_ARTIFACT_BASE64, pattern: "^[A-Za-z0-9+/]+={0,2}$" }),
  },
  { additionalProperties: false },
);
export type RunnerArtifact = Static<typeof RunnerArtifact>;

const CheckDataRecord = Type.Record(Type.String(), Type.Union([Type.Number(), Type.String(), Type.Boolean(), Type.Null()]));
const CheckDataValue = Type.Union([Type.Number(), Type.String(), Type.Boolean(), Type.Array(Type.String()), Type.Array(CheckDataRecord), Type.Null()]);

export const RunnerResult = Type.Object(
  {
    claim: Claim,
    status: Type.Union([Type.Literal("up"), Type.Literal("down"), Type.Literal("degraded"), Type.Literal("timeout"), Type.Literal("unavailable")]),
    checked_at: Type.Number(),
    duration_ms: Type.Number({ minimum: 0 }),
    error: Type.Union([Type.String({ maxLength: 4000 }), Type.Null()]),
    data: Type.Record(Type.String(), CheckDataValue),
    /** Files kept with the result (browser screenshots); the API stores them before publishing the result. */
    artifacts: Type.Optional(Type.Array(RunnerArtifact, { maxItems: MAX_RESULT_ARTIFACTS })),
  },
  { additionalProperties: false },
);
export type RunnerResult = Static<typeof RunnerResult>;

export const ResultsRequest = Type.Object({ results: Type.Array(RunnerResult, { minItems: 1, maxItems: 200 }) }, { additionalProperties: false });
export type ResultsRequest = Static<typeof ResultsRequest>;

export const ReleaseRequest = Type.Object({ claims: Type.Array(Claim, { minItems: 1, maxItems: 200 }) }, { additionalProperties: false });
export type ReleaseRequest = Static<typeof ReleaseRequest>;

/** Claims one /session/end may hand back: a runner holds at most CONCURRENCY (≤ 100) checks plus results not yet sent. */
export const MAX_END_CLAIMS = 200;

/** POST /runner/session/end: the runner is stopping (SIGTERM, SIGINT); what it still holds goes back on its queue. */
export const SessionEndRequest = Type.Object(
  {
    /** Why it stops, for the API's log (the signal). */
    reason: Type.String({ minLength: 1, maxLength: 200 }),
    claims: Type.Array(Claim, { maxItems: MAX_END_CLAIMS }),
  },
  { additionalProperties: false },
);
export type SessionEndRequest = Static<typeof SessionEndRequest>;
export interface SessionEndResponse {
  released: number;
}
