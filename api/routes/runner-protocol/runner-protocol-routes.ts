import { Elysia, t } from "elysia";
import { claimJobs, heartbeat, releaseJobs, reportResults } from "../../../domain/runners/jobs.ts";
import { ClaimRequest, HeartbeatRequest, ReleaseRequest, ResultsRequest, SessionEndRequest, SessionRequest } from "../../../schemas/runner-protocol.ts";
import { openPayload, openSession, sealPayload } from "../../../domain/runners/sessions.ts";
import { endSession } from "../../../domain/runners/session-end.ts";
import type { ApiDeps } from "../../context.ts";
import { authenticateRunner } from "./auth.ts";
import { Int } from "../../schemas/common.ts";

/** On the wire: sealed `{ session_id, seq, nonce, ciphertext }`, or `{ session_id, seq, payload }` on a plain session. */
const SessionPayload = t.Object(
  {
    session_id: t.String({ maxLength: 64 }),
    seq: Int({ minimum: 0, description: "Monotonic per direction; AAD binds session_id|direction|seq (r2s or s2r)" }),
    nonce: t.Optional(t.String({ description: "12 random bytes, base64url" })),
    ciphertext: t.Optional(t.String({ description: "AES-256-GCM ciphertext with its 16-byte tag appended, base64url" })),
    payload: t.Optional(t.Unknown({ description: "Only on a session opened with encrypted: false" })),
  },
  { title: "RunnerSessionPayload" },
);

const SessionOpened = t.Object(
  {
    session_id: t.String(),
    runner_id: t.String(),
    encrypted: t.Boolean(),
    server_public_key: t.Union([t.String({ description: "Raw X25519 public key, base64url" }), t.Null()]),
    expires_at: t.String({ format: "date-time" }),
    confirm: t.Union([SessionPayload, t.Null()], { description: "{ session_id, runner_id } sealed s2r with seq 0; null on a plain session" }),
  },
  { title: "RunnerSessionOpened" },
);

const doc = (summary: string, inside: string) => ({ summary, description: inside, security: [{ runnerToken: [] }] });

/**
 * The self-hosted runner protocol. Authentication is the runner token on every request (not an
 * API key); each body after the handshake is a session payload opened and sealed here.
 */
export const runnerProtocolRoutes = (deps: ApiDeps) => {
  const jobDeps = { sql: deps.sql, bus: deps.bus, box: deps.box, log: deps.log, claims: deps.runnerClaims, unheard: () => deps.runnersUnheard() };
  return new Elysia({ prefix: "/runner", detail: { tags: ["runner"] } })
    .derive(async ({ request, set }) => ({ runner: await authenticateRunner(deps, request, set) }))
    .post("/session", ({ runner, body }) => openSession(deps.sql, deps.box, deps.log, runner, body), {
      body: SessionRequest,
      response: { 200: SessionOpened },
      detail: doc(
        "Open a session: X25519 key exchange bound to the token",
        "Key = HKDF-SHA256(X25519 shared secret, salt = SHA-256(token), info = 'watchpost-runner-session-v1|<session_id>|<runner_public_key>|<server_public_key>'). `confirm` is sealed s2r with seq 0 and must open to { session_id, runner_id }. encrypted: false only for ALLOW_UNENCRYPTED_SESSION=true.",
      ),
    })
    .post(
      "/heartbeat",
      async ({ runner, body }) => {
        const { session, value } = await openPayload(deps.sql, deps.box, runner, body, HeartbeatRequest);
        return sealPayload(deps.sql, session, await heartbeat(jobDeps, runner, session.id, value));
      },
      { body: SessionPayload, response: { 200: SessionPayload }, detail: doc("Liveness and claim extension", "Inside: { version, name, region, capabilities {browsers, concurrency}, heartbeat_interval_ms, in_flight: [claim] } → { suspended, extended, lost: [claim] }") },
    )
    .post(
      "/jobs/claim",
      async ({ runner, body, request }) => {
        const { session, value } = await openPayload(deps.sql, deps.box, runner, body, ClaimRequest);
        const claimed = await claimJobs(jobDeps, runner, session.id, value, request.signal);
        // The session vanished during the long poll (revoke, eviction): hand the jobs straight back.
        return sealPayload(deps.sql, session, claimed).catch(async (err) => {
          if (claimed.jobs.length > 0) await releaseJobs(jobDeps, runner, { claims: claimed.jobs.map((j) => j.claim) });
          throw err;
        });
      },
      {
        body: SessionPayload,
        response: { 200: SessionPayload },
        detail: doc("Long-poll for jobs on jobs.runner.<id>", "Inside: { max, wait_ms } → { jobs: [{ claim, job: { id, org_id, monitor_id, location, due_at, expires_at, type, config (secrets merged), timeout_ms } }] }"),
      },
    )
    .post(
      "/results",
      async ({ runner, body }) => {
        const { session, value } = await openPayload(deps.sql, deps.box, runner, body, ResultsRequest);
        return sealPayload(deps.sql, session, await reportResults(jobDeps, runner, value));
      },
      {
        body: SessionPayload,
        response: { 200: SessionPayload },
        detail: doc("Report a batch of results; each job is acked after its result is stored", "Inside: { results: [{ claim, status, checked_at, duration_ms, error, data }] } → { accepted }. A claim not issued to this runner refuses the batch (403 RUNNER_CLAIM_FOREIGN)."),
      },
    )
    .post(
      "/jobs/release",
      async ({ runner, body }) => {
        const { session, value } = await openPayload(deps.sql, deps.box, runner, body, ReleaseRequest);
        return sealPayload(deps.sql, session, await releaseJobs(jobDeps, runner, value));
      },
      { body: SessionPayload, response: { 200: SessionPayload }, detail: doc("Hand claimed jobs back for immediate redelivery (shutdown)", "Inside: { claims: [claim] } → { released }") },
    )
    .post(
      "/session/end",
      async ({ runner, body }) => {
        const { session, value } = await openPayload(deps.sql, deps.box, runner, body, SessionEndRequest);
        return endSession(jobDeps, runner, session, value);
      },
      {
        body: SessionPayload,
        response: { 200: SessionPayload },
        detail: doc(
          "End the session: the runner is stopping (graceful shutdown), offline at once",
          "Inside: { reason, claims: [claim] (≤ 200) } → { released }. The claims it still holds are handed back for immediate redelivery, the session is deleted (later payloads on it answer 409 RUNNER_SESSION_INVALID) and the runner shows offline at once (`stopped_at`) until it opens a new session. A claim not issued to this runner refuses the call (403 RUNNER_CLAIM_FOREIGN) and nothing ends.",
        ),
      },
    );
};
