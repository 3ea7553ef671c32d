import { describe, expect, it } from "bun:test";
import { decodeUtf8, duplicateKeyPath } from "./json-body.ts";

describe("duplicateKeyPath", () => {
  it("names the first key repeated in one object, however deep", () => {
    expect(duplicateKeyPath(`{"a":1,"a":2}`)).toBe("body.a");
    expect(duplicateKeyPath(`{"x":{"y":[{"k":1},{"k":2,"k":3}]}}`)).toBe("body.x.y.1.k");
    expect(duplicateKeyPath(`{"type":"tcp","type":"http"}`)).toBe("body.type");
  });

  it("compares keys after unescaping them", () => {
    expect(duplicateKeyPath(`{"a":1,"\\u0061":2}`)).toBe("body.a");
  });

  it("accepts the same key in sibling objects, in strings and in arrays", () => {
    expect(duplicateKeyPath(`[{"a":1},{"a":1}]`)).toBeNull();
    expect(duplicateKeyPath(`{"a":"\\"a\\":1,","b":{"a":2}}`)).toBeNull();
    expect(duplicateKeyPath(`{"a":[1,2,3],"b":[{"a":1}]}`)).toBeNull();
  });

  it("gives up quietly on text that is not JSON (the parser refuses it next)", () => {
    expect(duplicateKeyPath(`{"a":1,"a`)).toBeNull();
    expect(duplicateKeyPath(`}}]]{`)).toBeNull();
  });
});

describe("decodeUtf8", () => {
  it("refuses invalid UTF-8 and accepts any valid text", () => {
    expect(decodeUtf8(new Uint8Array([0x7b, 0xc3, 0x28, 0x7d]))).toBeNull();
    expect(decodeUtf8(new Uint8Array([0xed, 0xa0, 0x80]))).toBeNull(); // an encoded lone surrogate
    expect(decodeUtf8(new TextEncoder().encode(`{"name":"Zürich 東京 🚀"}`))).toBe(`{"name":"Zürich 東京 🚀"}`);
  });
});
