import { describe, expect, it } from "bun:test";
import { isValidElement } from "react";
import { ApiError } from "../api/client";
import { nextStep } from "./ui";

describe("nextStep for PERMISSION_DENIED", () => {
  it("points at 2FA setup when the organisation's policy is what refused", () => {
    const step = nextStep(new ApiError(403, "PERMISSION_DENIED", "This organisation requires two-factor authentication", { reason: "two_factor_required" }));
    expect(isValidElement(step)).toBe(true);
    expect((step as { props: { to: string } }).props.to).toBe("/account/security");
  });

  it("blames the role only when no other reason is given", () => {
    expect(nextStep(new ApiError(403, "PERMISSION_DENIED", "Requires the runners:write permission", { permission: "runners:write" }))).toContain("Your role");
    expect(nextStep(new ApiError(403, "PERMISSION_DENIED", "Missing or invalid CSRF token", { reason: "csrf" }))).toBeNull();
  });
});

describe("nextStep adds no role sentence that contradicts the refusal", () => {
  it("says nothing about roles to someone who is in no organisation", () => {
    expect(nextStep(new ApiError(403, "PERMISSION_DENIED", "You are not a member of any organisation", { reason: "not_a_member" }))).toBeNull();
  });

  it("leaves a message that already says who can as it is", () => {
    expect(nextStep(new ApiError(403, "PERMISSION_DENIED", "Only an owner can invite another owner", { reason: "owner_only" }))).toBeNull();
    expect(nextStep(new ApiError(403, "PERMISSION_DENIED", "Only an owner can change ownership"))).toBeNull();
  });

  it("points at the caller's own 2FA setup when turning on the organisation's policy needs it", () => {
    const step = nextStep(new ApiError(403, "PERMISSION_DENIED", "Turn on two-factor authentication for your own account first", { reason: "own_two_factor_required" }));
    expect(isValidElement(step)).toBe(true);
    expect((step as { props: { to: string } }).props.to).toBe("/account/security");
  });

  it("still names the role when a permission is what is missing", () => {
    expect(nextStep(new ApiError(403, "PERMISSION_DENIED", "You cannot invite someone to a role with permissions you do not hold", { permissions: ["billing:manage"] }))).toContain("Your role");
  });
});

describe("nextStep for UNAUTHENTICATED", () => {
  it("offers no 'Sign in again' when the account only needs its second factor", () => {
    expect(nextStep(new ApiError(401, "UNAUTHENTICATED", "Two-factor code required", { reason: "totp_required" }))).toBeNull();
  });

  it("offers no link back to the sign-in form when that form's own sign-in was refused", () => {
    expect(nextStep(new ApiError(401, "UNAUTHENTICATED", "Invalid email, password or code"), { onSignInForm: true })).toBeNull();
  });

  it("offers signing in again when the session is gone", () => {
    const step = nextStep(new ApiError(401, "UNAUTHENTICATED", "Authentication required"));
    expect(isValidElement(step)).toBe(true);
    expect((step as { props: { to: string } }).props.to).toBe("/signin");
  });
});
