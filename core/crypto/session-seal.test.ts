import { describe, expect, it } from "bun:test";
import { randomBytes } from "node:crypto";
import { deriveSessionKey, newX25519, open, ReplayWindow, seal, SessionCryptoError, tokenSalt } from "./session-seal.ts";

describe("session crypto", () => {
  it("derives the same key on both sides only with the same token", () => {
    const runner = newX25519();
    const server = newX25519();
    const salt = tokenSalt("rt_one");
    const a = deriveSessionKey(runner.privateKey, server.publicKey, salt, "rsn_1", runner.publicKey, server.publicKey);
    const b = deriveSessionKey(server.privateKey, runner.publicKey, salt, "rsn_1", runner.publicKey, server.publicKey);
    expect(a.equals(b)).toBe(true);
    expect(a.equals(deriveSessionKey(server.privateKey, runner.publicKey, tokenSalt("rt_two"), "rsn_1", runner.publicKey, server.publicKey))).toBe(false);
    expect(a.equals(deriveSessionKey(server.privateKey, runner.publicKey, salt, "rsn_2", runner.publicKey, server.publicKey))).toBe(false);
  });

  it("opens what it sealed and refuses another direction, seq, session or a flipped bit", () => {
    const key = randomBytes(32);
    const sealed = seal(key, "rsn_1", "r2s", 7, { hello: "world" });
    expect(open(key, "r2s", sealed)).toEqual({ hello: "world" });
    expect(() => open(key, "s2r", sealed)).toThrow(SessionCryptoError);
    expect(() => open(key, "r2s", { ...sealed, seq: 8 })).toThrow(SessionCryptoError);
    expect(() => open(key, "r2s", { ...sealed, session_id: "rsn_2" })).toThrow(SessionCryptoError);
    const bytes = Buffer.from(sealed.ciphertext, "base64url");
    bytes[bytes.length - 1]! ^= 0x80;
    expect(() => open(key, "r2s", { ...sealed, ciphertext: bytes.toString("base64url") })).toThrow(SessionCryptoError);
    expect(() => open(randomBytes(32), "r2s", sealed)).toThrow(SessionCryptoError);
  });

  it("uses a fresh nonce for every payload", () => {
    const key = randomBytes(32);
    expect(seal(key, "s", "r2s", 1, 1).nonce).not.toBe(seal(key, "s", "r2s", 1, 1).nonce);
  });

  it("refuses a malformed public key", () => {
    const own = newX25519();
    expect(() => deriveSessionKey(own.privateKey, "abc", tokenSalt("rt_x"), "s", "a", "b")).toThrow(SessionCryptoError);
  });
});

describe("ReplayWindow", () => {
  it("accepts each seq once, out of order inside 64, and nothing older", () => {
    const w = new ReplayWindow();
    expect(w.accept(0)).toBe(false);
    expect(w.accept(2)).toBe(true);
    expect(w.accept(1)).toBe(true);
    expect(w.accept(2)).toBe(false);
    expect(w.accept(100)).toBe(true);
    expect(w.accept(37)).toBe(true);
    expect(w.accept(36)).toBe(false);
    expect(w.accept(37)).toBe(false);
    expect(w.accept(99)).toBe(true);
    expect(w.accept(1000)).toBe(true);
    expect(w.accept(100)).toBe(false);
  });
});
