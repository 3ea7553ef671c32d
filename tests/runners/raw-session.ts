import { expect } from "bun:test";
import { deriveSessionKey, newX25519, open, seal, tokenSalt } from "../../core/crypto/session-seal.ts";
import type { TlsApi } from "./support.ts";

/** What a runner reports when it opens a session and with each heartbeat. */
export const runnerReport = { version: "test", name: "t", region: "lab", capabilities: { browsers: [], concurrency: 5 }, heartbeat_interval_ms: 5000 };

/** POSTs `body` as it is to `/api/v1/runner<path>` with the runner's token. */
export async function runnerPost(api: Pick<TlsApi, "url" | "caPem">, path: string, token: string, body: unknown, signal?: AbortSignal) {
  const res = await fetch(`${api.url}/api/v1/runner${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
    tls: { ca: api.caPem },
    signal,
  } as RequestInit);
  return { status: res.status, body: (await res.json()) as any };
}

/** A session made by hand from the primitives, to send payloads a well-behaved runner never would. */
export async function rawSession(api: Pick<TlsApi, "url" | "caPem">, token: string) {
  const pair = newX25519();
  const res = await runnerPost(api, "/session", token, { ...runnerReport, encrypted: true, runner_public_key: pair.publicKey });
  expect(res.status).toBe(200);
  const id: string = res.body.session_id;
  const key = deriveSessionKey(pair.privateKey, res.body.server_public_key, tokenSalt(token), id, pair.publicKey, res.body.server_public_key);
  expect(open(key, "s2r", res.body.confirm)).toMatchObject({ session_id: id });
  let seq = 0;
  return {
    id,
    key,
    seal: (value: unknown, s = ++seq) => seal(key, id, "r2s", s, value),
    async call<T>(path: string, value: unknown, signal?: AbortSignal): Promise<T> {
      const r = await runnerPost(api, path, token, seal(key, id, "r2s", ++seq, value), signal);
      if (r.status !== 200) throw new Error(`${path} ${r.status} ${JSON.stringify(r.body)}`);
      return open(key, "s2r", r.body) as T;
    },
  };
}
