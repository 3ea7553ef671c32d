import { describe, expect, it } from "bun:test";
import { parseWhoisDate } from "./whois.ts";

describe("parseWhoisDate", () => {
  const cases: Array<[string, string]> = [
    ["2028-09-14T04:00:00Z", "2028-09-14T04:00:00.000Z"],
    ["2028-09-14T04:00:00.0Z", "2028-09-14T04:00:00.000Z"],
    ["2028-09-14 04:00:00 CLST", "2028-09-14T04:00:00.000Z"],
    ["2028.09.14", "2028-09-14T00:00:00.000Z"],
    ["2028/09/14", "2028-09-14T00:00:00.000Z"],
    ["14.09.2028", "2028-09-14T00:00:00.000Z"],
    ["14-Sep-2028", "2028-09-14T00:00:00.000Z"],
    ["14 September 2028", "2028-09-14T00:00:00.000Z"],
  ];
  for (const [text, iso] of cases) {
    it(`reads "${text}"`, () => {
      expect(parseWhoisDate(text)?.toISOString()).toBe(iso);
    });
  }

  it("returns null for text without a date", () => {
    expect(parseWhoisDate("")).toBeNull();
    expect(parseWhoisDate("not disclosed")).toBeNull();
  });
});
