import { describe, expect, it } from "bun:test";
import { generateSchemaTypes, SCHEMA_PATH } from "./openapi-types.ts";

describe("web API types", () => {
  it("match the API's current OpenAPI document (run `bun scripts/gen-api-types.ts` when this fails)", async () => {
    const checkedIn = await Bun.file(SCHEMA_PATH).text();
    expect(checkedIn === (await generateSchemaTypes())).toBe(true);
  });
});
