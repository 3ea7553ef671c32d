import type { Logger } from "../core/log.ts";
import type { SessionRequest, SessionResponse } from "../schemas/runner-protocol.ts";
import type { ApiReachability } from "./api-reachability.ts";
import { deriveSessionKey, isSealed, newX25519, open, ReplayWindow, seal, type SessionPayload, tokenSalt } from "../core/crypto/session-seal.ts";

/** The API answered with an error body; `code` is the stable identifier. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** No answer from the API itself: no connection, TLS failed, the call's deadline passed, or a proxy's 502/503/504. */
    readonly unanswered = false,
  ) {
    super(status ? `${status} ${code}: ${message}` : `${code}: ${message}`);
  }
  /** The token is unknown or revoked: stop, retrying cannot help. */
  get fatal(): boolean {
    return this.status === 401 || this.code === "RUNNER_HTTPS_REQUIRED";
  }
}

class HandshakeError extends Error {}

/** What the handshake opened, for the runner's log. */
export interface OpenedSession {
  sessionId: string;
  runnerId: string;
  encrypted: boolean;
}

/** A failed connection's cause, without Bun's hint about `verbose: true`. */
const causeOf = (err: unknown) => (err instanceof Error ? err.message : String(err)).replace(/\.?\s*For more information, pass `verbose: true`.*$/s, "");

/** Answers that mean the API (or what stands in front of it) could not serve the call, rather than refusing it. */
const NOT_SERVING = new Set([502, 503, 504]);

export interface ApiClientOptions {
  baseUrl: string;
  token: string;
  encrypted: boolean;
  log: Logger;
  /** Injected in tests and the bench to observe the wire. */
  fetch?: typeof fetch;
  /**
   * How long a call may wait for its answer beyond its long-poll wait (`wait_ms`, claims only); past it the call
   * fails with `API_TIMEOUT`. Default 30 s.
   */
  callTimeoutMs?: number;
  /** Told of every call answered or not, so an outage is logged once rather than once per retry. */
  reachability?: ApiReachability;
}

/**
 * A connection a firewall or NAT forgot answers nothing and is never closed: without a deadline a call waited until
 * TCP or the API's idle timeout gave up, minutes without claims or heartbeats, and the API took the runner for
 * offline. An aborted call's connection is not used again.
 */
const CALL_TIMEOUT_MS = 30_000;

interface Session {
  id: string;
  encrypted: boolean;
  key: Buffer | null;
  seqOut: number;
  inbound: ReplayWindow;
}

/**
 * HTTPS to the API with the runner token on every request. After `handshake()` every body is
 * sealed for (session, r2s, seq) and every answer must open for (session, s2r, seq) exactly once.
 */
export class ApiClient {
  private session: Session | null = null;
  private readonly fetch: typeof fetch;

  constructor(private readonly o: ApiClientOptions) {
    this.fetch = o.fetch ?? fetch;
  }

  get sessionId(): string | null {
    return this.session?.id ?? null;
  }

  /** `waitMs`: the call's long-poll wait, which the API may take before it answers. */
  private async post(path: string, body: unknown, signal?: AbortSignal, waitMs = 0): Promise<unknown> {
    const limitMs = waitMs + (this.o.callTimeoutMs ?? CALL_TIMEOUT_MS);
    const deadline = AbortSignal.timeout(limitMs);
    let res: Response;
    let text: string;
    try {
      res = await this.fetch(`${this.o.baseUrl.replace(/\/+$/, "")}/api/v1/runner${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${this.o.token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
      });
      text = await res.text();
    } catch (err) {
      // The caller gave up (the runner is stopping): says nothing about the API.
      if (signal?.aborted) throw err;
      const reason = deadline.aborted ? `no answer to ${path} within ${limitMs} ms` : `${causeOf(err)} (${path})`;
      this.o.reachability?.failed(reason);
      throw deadline.aborted ? new ApiError(504, "API_TIMEOUT", reason, true) : new ApiError(0, "API_UNREACHABLE", reason, true);
    }
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // Not JSON (a proxy's error page): reported below with the status.
    }
    if (!res.ok) {
      const err = parsed as { code?: string; error?: string } | null;
      const failure = new ApiError(res.status, err?.code ?? "HTTP_ERROR", err?.error ?? text.slice(0, 200), NOT_SERVING.has(res.status));
      if (failure.unanswered) this.o.reachability?.failed(failure.message);
      else this.o.reachability?.answered();
      throw failure;
    }
    this.o.reachability?.answered();
    return parsed;
  }

  /** Opens a session; any failure is a HandshakeError (or a fatal ApiError) and the runner must not start. */
  async handshake(report: Omit<SessionRequest, "encrypted" | "runner_public_key">, signal?: AbortSignal): Promise<OpenedSession> {
    const pair = this.o.encrypted ? newX25519() : null;
    const res = (await this.post("/session", { ...report, encrypted: this.o.encrypted, ...(pair ? { runner_public_key: pair.publicKey } : {}) }, signal)) as SessionResponse;
    if (!res || typeof res.session_id !== "string") throw new HandshakeError("session answer without session_id");
    if (!this.o.encrypted) {
      if (res.encrypted) throw new HandshakeError("asked for a plain session but the API opened an encrypted one");
      this.o.log.warn({ op: "runner.session", sessionId: res.session_id }, "UNENCRYPTED SESSION: job and result payloads travel without payload encryption (ALLOW_UNENCRYPTED_SESSION=true); local development only");
      this.session = { id: res.session_id, encrypted: false, key: null, seqOut: 0, inbound: new ReplayWindow() };
      return { sessionId: res.session_id, runnerId: res.runner_id, encrypted: false };
    }
    if (!res.encrypted || !res.server_public_key || !res.confirm) throw new HandshakeError("the API did not open an encrypted session");
    let key: Buffer;
    try {
      key = deriveSessionKey(pair!.privateKey, res.server_public_key, tokenSalt(this.o.token), res.session_id, pair!.publicKey, res.server_public_key);
      const confirm = open(key, "s2r", { ...res.confirm, session_id: res.session_id, seq: 0 }) as { session_id?: string };
      if (confirm.session_id !== res.session_id) throw new Error("confirmation names another session");
    } catch (err) {
      throw new HandshakeError(`key confirmation failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.session = { id: res.session_id, encrypted: true, key, seqOut: 0, inbound: new ReplayWindow() };
    return { sessionId: res.session_id, runnerId: res.runner_id, encrypted: true };
  }

  /** One protocol call inside the session. */
  async call<T>(path: string, value: unknown, signal?: AbortSignal): Promise<T> {
    const s = this.session;
    if (!s) throw new HandshakeError("no session");
    const seq = ++s.seqOut;
    const body: SessionPayload = s.encrypted ? seal(s.key!, s.id, "r2s", seq, value) : { session_id: s.id, seq, payload: value };
    const wait = (value as { wait_ms?: unknown } | null)?.wait_ms;
    const answer = (await this.post(path, body, signal, typeof wait === "number" ? wait : 0)) as SessionPayload;
    if (!answer || answer.session_id !== s.id || typeof answer.seq !== "number") throw new ApiError(502, "RUNNER_PAYLOAD_INVALID", "answer is not a payload of this session");
    if (s.encrypted !== isSealed(answer)) throw new ApiError(502, "RUNNER_PAYLOAD_INVALID", "answer encryption does not match the session");
    const plain = s.encrypted ? open(s.key!, "s2r", answer as Parameters<typeof open>[2]) : (answer as { payload: unknown }).payload;
    if (!s.inbound.accept(answer.seq)) throw new ApiError(502, "RUNNER_REPLAY", `answer seq ${answer.seq} replayed`);
    return plain as T;
  }
}
