import { createCipheriv, createDecipheriv, createHash, createPublicKey, diffieHellman, generateKeyPairSync, hkdfSync, type KeyObject, randomBytes } from "node:crypto";

/**
 * The runner session: X25519 key agreement bound to the runner token, AES-256-GCM payloads.
 * Shared by the API and the runner process so both sides derive and check the same way.
 */
export type Direction = "r2s" | "s2r";

/** An encrypted payload on the wire. `ciphertext` carries the 16-byte GCM tag at its end. */
export interface SealedPayload {
  session_id: string;
  seq: number;
  nonce: string;
  ciphertext: string;
}

/** A payload of a session the runner opened with ALLOW_UNENCRYPTED_SESSION=true. */
interface PlainPayload {
  session_id: string;
  seq: number;
  payload: unknown;
}

export type SessionPayload = SealedPayload | PlainPayload;

export class SessionCryptoError extends Error {}

export interface X25519Pair {
  privateKey: KeyObject;
  /** Raw 32-byte public key, base64url. */
  publicKey: string;
}

export function newX25519(): X25519Pair {
  const { privateKey, publicKey } = generateKeyPairSync("x25519");
  const jwk = publicKey.export({ format: "jwk" });
  return { privateKey, publicKey: jwk.x! };
}

function peerKey(rawBase64url: string): KeyObject {
  if (Buffer.from(rawBase64url, "base64url").length !== 32) throw new SessionCryptoError("public key must be 32 bytes (base64url)");
  return createPublicKey({ key: { kty: "OKP", crv: "X25519", x: rawBase64url }, format: "jwk" });
}

/** The token digest the API stores: the salt binds the session to the token without the API knowing the token. */
export const tokenSalt = (token: string): Buffer => createHash("sha256").update(token).digest();

/**
 * AES-256-GCM key = HKDF-SHA256(X25519 shared secret, salt = SHA-256(token),
 * info = "watchpost-runner-session-v1" | session id | runner public key | server public key).
 */
export function deriveSessionKey(own: KeyObject, peerPublic: string, salt: Buffer, sessionId: string, runnerPublic: string, serverPublic: string): Buffer {
  const shared = diffieHellman({ privateKey: own, publicKey: peerKey(peerPublic) });
  if (shared.every((b) => b === 0)) throw new SessionCryptoError("degenerate shared secret");
  const info = Buffer.from(`watchpost-runner-session-v1|${sessionId}|${runnerPublic}|${serverPublic}`);
  return Buffer.from(hkdfSync("sha256", shared, salt, info, 32));
}

const aad = (sessionId: string, direction: Direction, seq: number) => Buffer.from(`${sessionId}|${direction}|${seq}`);

export function seal(key: Buffer, sessionId: string, direction: Direction, seq: number, value: unknown): SealedPayload {
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  cipher.setAAD(aad(sessionId, direction, seq));
  const body = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final(), cipher.getAuthTag()]);
  return { session_id: sessionId, seq, nonce: nonce.toString("base64url"), ciphertext: body.toString("base64url") };
}

/** Throws SessionCryptoError when the payload was tampered with or sealed for another session, direction or seq. */
export function open(key: Buffer, direction: Direction, sealed: SealedPayload): unknown {
  const nonce = Buffer.from(sealed.nonce, "base64url");
  const body = Buffer.from(sealed.ciphertext, "base64url");
  if (nonce.length !== 12 || body.length < 16) throw new SessionCryptoError("malformed sealed payload");
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, nonce);
    decipher.setAAD(aad(sealed.session_id, direction, sealed.seq));
    decipher.setAuthTag(body.subarray(body.length - 16));
    const plain = Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]);
    return JSON.parse(plain.toString("utf8"));
  } catch {
    throw new SessionCryptoError("payload failed authentication (tampered, or sealed for another session, direction or seq)");
  }
}

export const isSealed = (p: SessionPayload): p is SealedPayload => "ciphertext" in p;

/** IPsec-style anti-replay window of 64 for one direction, in memory (the runner's side). */
export class ReplayWindow {
  private max = 0;
  private seen = 0n;

  accept(seq: number): boolean {
    if (!Number.isSafeInteger(seq) || seq <= 0) return false;
    if (seq > this.max) {
      const shift = seq - this.max;
      this.seen = shift >= 64 ? 1n : ((this.seen << BigInt(shift)) | 1n) & 0xffffffffffffffffn;
      this.max = seq;
      return true;
    }
    const back = BigInt(this.max - seq);
    if (back >= 64n || (this.seen >> back) & 1n) return false;
    this.seen |= 1n << back;
    return true;
  }
}
