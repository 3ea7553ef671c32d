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
