import { describe, expect, it } from "bun:test";
import { SecretBox } from "./secrets.ts";

const OLD = "the-old-secret-key-0123456789abcdef0123456789";
const NEW = "the-new-secret-key-0123456789abcdef0123456789";

describe("SecretBox during a SECRET_KEY rotation", () => {
  it("reads what the previous key encrypted and signed, and writes with the current key only", () => {
    const before = new SecretBox(OLD);
    const during = new SecretBox(NEW, [OLD]);
    const after = new SecretBox(NEW);
    const sealed = before.encrypt("channel secret");
    expect(during.decrypt(sealed)).toBe("channel secret");
    expect(during.isCurrent(sealed)).toBe(false);
    expect(() => after.decrypt(sealed)).toThrow();

    const resealed = during.encrypt("channel secret");
    expect(during.isCurrent(resealed)).toBe(true);
    expect(after.decrypt(resealed)).toBe("channel secret");
    expect(() => before.decrypt(resealed)).toThrow();

    const oldSignature = before.sign("unsubscribe.sub_1");
    expect(during.verify("unsubscribe.sub_1", oldSignature)).toBe(true);
    expect(during.sign("unsubscribe.sub_1")).toBe(after.sign("unsubscribe.sub_1"));
    expect(after.verify("unsubscribe.sub_1", oldSignature)).toBe(false);
    expect(during.verify("unsubscribe.sub_2", oldSignature)).toBe(false);
  });

  it("refuses a value none of its keys encrypted", () => {
    const stranger = new SecretBox("someone-elses-secret-key-0123456789abcdef");
    expect(() => new SecretBox(NEW, [OLD]).decrypt(stranger.encrypt("x"))).toThrow();
    expect(new SecretBox(NEW, [OLD]).isCurrent("not a box")).toBe(false);
  });
});
