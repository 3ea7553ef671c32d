import { describe, expect, it } from "bun:test";
import { grants } from "../../../../schemas/access/permissions";
import { assignableRoles, roleGrants } from "./use-permissions";

describe("roleGrants", () => {
  it("answers as the API's own rule does for every permission", () => {
    const lists = [["org:admin"], ["org:admin", "billing:manage", "org:owner"], ["monitors:read"], []];
    for (const list of lists) {
      for (const p of ["org:admin", "monitors:write", "billing:manage", "org:owner", "runners:read"] as const) {
        expect(roleGrants(list, p)).toBe(grants(list, p));
      }
    }
  });
});

describe("assignableRoles", () => {
  const roles = [
    { id: "owner", permissions: ["org:admin", "billing:manage", "org:owner"] },
    { id: "admin", permissions: ["org:admin"] },
    { id: "member", permissions: ["monitors:read", "monitors:write"] },
    { id: "viewer", permissions: ["monitors:read"] },
    { id: "role_billing", permissions: ["billing:manage", "monitors:read"] },
    { id: "role_status", permissions: ["status_pages:write"] },
  ];
  const ids = (list: { id: string }[]) => list.map((r) => r.id);

  it("offers an admin only roles within org:admin: no owner, no role holding billing:manage", () => {
    expect(ids(assignableRoles(roles, ["org:admin"]))).toEqual(["admin", "member", "viewer", "role_status"]);
  });

  it("offers an owner every role", () => {
    expect(ids(assignableRoles(roles, ["org:admin", "billing:manage", "org:owner"]))).toEqual(ids(roles));
  });

  it("offers a narrow role only what it covers", () => {
    expect(ids(assignableRoles(roles, ["monitors:read"]))).toEqual(["viewer"]);
  });
});
