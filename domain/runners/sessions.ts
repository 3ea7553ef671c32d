import type { TSchema, Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { SecretBox } from "../../core/crypto/secrets.ts";
import type { Sql } from "../../db/client.ts";
import { AppError, validationError } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Logger } from "../../core/log.ts";
import * as q from "../../db/queries/runners.ts";
import { SESSION_TTL_SECONDS, type SessionRequest, type SessionResponse } from "../../schemas/runner-protocol.ts";
import { deriveSessionKey, isSealed, newX25519, open, seal, SessionCryptoError, type SessionPayload } from "../../core/crypto/session-seal.ts";

/** The authenticated runner of a request (token checked against the `runners` row). */
export interface RunnerCaller {
  id: string;
  orgId: string;
  tokenHash: Buffer;
  suspended: boolean;
}

export interface OpenSession {
  id: string;
  runnerId: string;
  encrypted: boolean;
  key: Buffer | null;
}

const payloadInvalid = (message: string) => new AppError(400, "RUNNER_PAYLOAD_INVALID", message);
const sessionInvalid = () => new AppError(409, "RUNNER_SESSION_INVALID", "Unknown or expired runner session; open a new one with POST /runner/session");

/** Session keys by id, so a busy runner does not cost a SecretBox decryption per request. */
const keyCache = new Map<string, Buffer>();

/**
 * The handshake: X25519 with the runner's key, AES key derived with the token digest as salt.
 * A plain session (runner opted out) is recorded as such; its payloads are refused if sealed and vice versa.
 */
export async function openSession(sql: Sql, box: SecretBox, log: Logger, runner: RunnerCaller, req: SessionRequest): Promise<SessionResponse> {
  const id = newId("rsn");
  let key: Buffer | null = null;
  let serverPublic: string | null = null;
  if (req.encrypted) {
    if (!req.runner_public_key) throw validationError([{ path: "body.runner_public_key", message: "required when encrypted is true" }]);
    const pair = newX25519();
    serverPublic = pair.publicKey;
    try {
      key = deriveSessionKey(pair.privateKey, req.runner_public_key, runner.tokenHash, id, req.runner_public_key, serverPublic);
    } catch (err) {
      throw validationError([{ path: "body.runner_public_key", message: err instanceof Error ? err.message : "invalid X25519 public key" }]);
    }
  } else {
    log.warn({ op: "runner.session", runnerId: runner.id, orgId: runner.orgId }, "runner opened an UNENCRYPTED session (ALLOW_UNENCRYPTED_SESSION=true on the runner)");
  }
  await q.insertRunnerSession(sql, { id, runnerId: runner.id, orgId: runner.orgId, encrypted: req.encrypted, keyEnc: key ? box.encrypt(key.toString("base64")) : null, ttlSeconds: SESSION_TTL_SECONDS });
  await q.recordRunnerBeat(
    sql,
    runner.id,
    id,
    { reportedName: req.name, region: req.region, version: req.version, browsers: req.capabilities.browsers, concurrency: req.capabilities.concurrency, heartbeatIntervalMs: req.heartbeat_interval_ms, inFlight: 0 },
    req.encrypted,
  );
  if (key && keyCache.size < 10_000) keyCache.set(id, key);
  return {
    session_id: id,
    runner_id: runner.id,
    encrypted: req.encrypted,
    server_public_key: serverPublic,
    expires_at: new Date(Date.now() + SESSION_TTL_SECONDS * 1000).toISOString(),
    confirm: key ? seal(key, id, "s2r", 0, { session_id: id, runner_id: runner.id }) : null,
  };
}

function isPayload(body: unknown): body is SessionPayload {
  if (!body || typeof body !== "object") return false;
  const b = body as Record<string, unknown>;
  if (typeof b.session_id !== "string" || typeof b.seq !== "number" || !Number.isSafeInteger(b.seq)) return false;
  return (typeof b.nonce === "string" && typeof b.ciphertext === "string") || "payload" in b;
}

/**
 * Opens a runner→server payload: the session must be the runner's and live, the payload sealed
 * unless the session is plain, authentic for (session, r2s, seq), and its seq not seen before.
 */
export async function openPayload<S extends TSchema>(sql: Sql, box: SecretBox, runner: RunnerCaller, body: unknown, schema: S): Promise<{ session: OpenSession; value: Static<S> }> {
  if (!isPayload(body)) throw payloadInvalid("Expected a session payload { session_id, seq, nonce, ciphertext }");
  const row = await q.findRunnerSession(sql, runner.id, body.session_id);
  if (!row) throw sessionInvalid();
  const session: OpenSession = { id: row.id, runnerId: row.runner_id, encrypted: row.encrypted, key: null };
  let value: unknown;
  if (row.encrypted) {
    if (!isSealed(body)) throw new AppError(400, "RUNNER_PLAINTEXT_REFUSED", "This session is encrypted; plain payloads are refused");
    let key = keyCache.get(row.id);
    if (!key) {
      if (keyCache.size >= 10_000) keyCache.clear();
      keyCache.set(row.id, (key = Buffer.from(box.decrypt(row.key_enc!), "base64")));
    }
    session.key = key;
    try {
      value = open(key, "r2s", body);
    } catch (err) {
      throw payloadInvalid(err instanceof SessionCryptoError ? err.message : "payload could not be decrypted");
    }
  } else {
    if (isSealed(body)) throw payloadInvalid("This session is plain (opened unencrypted); send { session_id, seq, payload }");
    value = body.payload;
  }
  // After authentication, so a forged payload cannot burn a sequence number.
  if (!(await q.acceptInboundSeq(sql, row.id, body.seq))) {
    throw new AppError(409, "RUNNER_REPLAY", `Payload seq ${body.seq} was already used or is too old for session ${row.id}`);
  }
  if (!Value.Check(schema, value)) {
    const issues = [...Value.Errors(schema, value)].slice(0, 10).map((e) => ({ path: `payload${e.path.replaceAll("/", ".")}`, message: e.message }));
    throw validationError(issues, "Runner payload failed validation");
  }
  return { session, value: value as Static<S> };
}

/** Seals a server→runner answer with the session's next outbound seq. */
export async function sealPayload(sql: Sql, session: OpenSession, value: unknown): Promise<SessionPayload> {
  const seq = await q.nextOutboundSeq(sql, session.id);
  if (seq === null) throw sessionInvalid();
  if (!session.encrypted) return { session_id: session.id, seq, payload: value };
  return seal(session.key!, session.id, "s2r", seq, value);
}
