import { describe, expect, it } from "bun:test";
import { recoveryCodesText } from "./recovery-codes";
import { checkTotpCode } from "./two-factor";

describe("checkTotpCode", () => {
  it("takes six digits, with the spaces apps show", () => {
    expect(checkTotpCode("123 456")).toEqual({ code: "123456" });
    expect(checkTotpCode(" 654321 ")).toEqual({ code: "654321" });
  });
  it("says in words what is wrong", () => {
    expect(checkTotpCode("  ")).toEqual({ problem: "Enter the 6-digit code your authenticator app shows now." });
    expect(checkTotpCode("12a456")).toEqual({ problem: "The code is digits only: type the 6 digits your app shows, without letters." });
    expect(checkTotpCode("12345")).toEqual({ problem: "The code has 6 digits; this one has 5." });
    expect(checkTotpCode("1234567")).toEqual({ problem: "The code has 6 digits; this one has 7." });
  });
});

describe("recoveryCodesText", () => {
  it("names the account and the time, then one code a line", () => {
    const text = recoveryCodesText(["aaaa-bbbb", "cccc-dddd"], "rita@example.test", new Date("2026-11-26T06:05:09Z"));
    expect(text).toStartWith("Watchpost recovery codes\nAccount: rita@example.test\nGenerated: 2026-11-26 06:05 UTC\n");
    expect(text).toEndWith("\naaaa-bbbb\ncccc-dddd\n");
  });
});
