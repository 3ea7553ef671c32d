import { describe, expect, it } from "bun:test";
import { SecretBox } from "../../core/crypto/secrets.ts";
import { signPageCookie, signSubscriberToken, verifyPageCookie, verifySubscriberToken } from "./tokens.ts";

const box = new SecretBox("unit-test-secret-key-0123456789abcdef");
const claims = { subscriberId: "sub_1", pageId: "sp_1", exp: 2_000_000_000 };

describe("subscriber tokens", () => {
  it("round-trips a token of the same purpose", () => {
    expect(verifySubscriberToken(box, "unsubscribe", signSubscriberToken(box, "unsubscribe", claims), 1_000)).toEqual(claims);
  });

  it("refuses another purpose, another key, an expired token and a changed payload", () => {
    const token = signSubscriberToken(box, "unsubscribe", claims);
    expect(verifySubscriberToken(box, "confirm", token, 1_000)).toBeNull();
    expect(verifySubscriberToken(new SecretBox("another-unit-test-key-0123456789abcdef"), "unsubscribe", token, 1_000)).toBeNull();
    expect(verifySubscriberToken(box, "unsubscribe", token, claims.exp + 1)).toBeNull();
    const [, sig] = token.split(".");
    expect(verifySubscriberToken(box, "unsubscribe", `${Buffer.from("sub_2:sp_1:2000000000").toString("base64url")}.${sig}`, 1_000)).toBeNull();
    expect(verifySubscriberToken(box, "unsubscribe", "", 1_000)).toBeNull();
  });
});

describe("page cookies", () => {
  it("are bound to the page, the password hash and the expiry", () => {
    const value = signPageCookie(box, "sp_1", "hash-a", 2_000);
    expect(verifyPageCookie(box, "sp_1", "hash-a", value, 1_000)).toBe(true);
    expect(verifyPageCookie(box, "sp_2", "hash-a", value, 1_000)).toBe(false);
    expect(verifyPageCookie(box, "sp_1", "hash-b", value, 1_000)).toBe(false);
    expect(verifyPageCookie(box, "sp_1", "hash-a", value, 2_001)).toBe(false);
    expect(verifyPageCookie(box, "sp_1", "hash-a", value.replace(/^\d+/, "9999"), 1_000)).toBe(false);
  });
});
