import { describe, expect, it } from "bun:test";
import { Cron } from "croner";
import { cronProblem } from "./cron-words.ts";

const problem = (expr: string) => {
  try {
    new Cron(expr, { paused: true, mode: "5-or-6-parts" });
    return null;
  } catch (err) {
    return cronProblem(expr, err);
  }
};

describe("a refused cron expression in words", () => {
  it("says what is wrong after the field's name, quoting what the user wrote rather than croner's internals", () => {
    expect(problem("0 3 * *")).toBe("needs 5 fields (minute hour day month weekday) or 6 (seconds first), such as 0 3 * * *; this has 4 fields");
    expect(problem("every day")).toBe("needs 5 fields (minute hour day month weekday) or 6 (seconds first), such as 0 3 * * *; this has 2 fields");
    expect(problem("61 * * * *")).toBe('has a minute out of range (0–59): "61"');
    expect(problem("0 25 * * *")).toBe('has an hour out of range (0–23): "25"');
    // croner says "day: 31" for 32; the user's own field is quoted.
    expect(problem("0 3 32 * *")).toBe('has a day of month out of range (1–31): "32"');
    expect(problem("0 3 * * 9")).toBe('has a weekday out of range (0–7 or SUN–SAT): "9"');
    expect(problem("0 0 3 * * 9")).toBe('has a weekday out of range (0–7 or SUN–SAT): "9"');
    // croner reports "1-XYZ" (MON already replaced); the user wrote MON-XYZ.
    expect(problem("0 3 * * MON-XYZ")).toBe('has characters cron does not read in its weekday field: "MON-XYZ"');
    expect(problem("*/0 * * * *")).toBe("has a step that is not a whole number of 1 or more (such as */5)");
    expect(problem("1-2-3 * * * *")).toBe('has a range cron does not read: "1-2-3" (a range is two values, such as 1-5)');
    expect(problem("0 3 * * *")).toBeNull();
  });
});
