import { describe, expect, it } from "bun:test";
import { SecretBox } from "../../core/crypto/secrets.ts";
import { signSubscriberToken } from "../status-pages/tokens.ts";
import { signReportUnsubscribe, verifyReportUnsubscribe } from "./tokens.ts";

const box = new SecretBox("report-token-test-key-0123456789abcdef0123");

describe("report unsubscribe tokens", () => {
  it("round-trips and refuses a changed, expired or foreign token", () => {
    const claims = { reportId: "rep_1", email: "a:b@example.test", exp: 2_000_000_000 };
    const token = signReportUnsubscribe(box, claims);
    expect(verifyReportUnsubscribe(box, token, 1_000)).toEqual(claims);
    expect(verifyReportUnsubscribe(box, token, 2_000_000_001)).toBeNull();
    const [payload, sig] = token.split(".");
    const other = Buffer.from(JSON.stringify(["rep_2", claims.email, claims.exp])).toString("base64url");
    expect(verifyReportUnsubscribe(box, `${other}.${sig}`, 1_000)).toBeNull();
    expect(verifyReportUnsubscribe(new SecretBox("another-key-0123456789abcdef0123456789ab"), token, 1_000)).toBeNull();
    expect(verifyReportUnsubscribe(box, `${payload}`, 1_000)).toBeNull();
    // A status-page unsubscribe token is signed for another purpose.
    expect(verifyReportUnsubscribe(box, signSubscriberToken(box, "unsubscribe", { subscriberId: "s", pageId: "p", exp: 2_000_000_000 }), 1_000)).toBeNull();
  });
});
