import { describe, expect, it } from "bun:test";
import { grants } from "../../../../schemas/access/permissions";
import { roleGrants } from "./use-permissions";

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
