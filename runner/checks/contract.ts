import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { describe, expect, it } from "bun:test";
import { dataSchemas } from "../../schemas/check-types.ts";
import { CHECK_STATUSES, CheckAbortedError, type Check, type CheckContext, type CheckResult } from "./types.ts";

export interface ContractFixtures<S extends TSchema> {
  /** Context for every case (endpoints, resolver); called at test time, after the test's servers started. */
  context?: () => Partial<Omit<CheckContext, "timeoutMs" | "signal">>;
  /** Config of a reachable loopback target: a well-formed result that is not a timeout. */
  reachable: () => Static<S>;
  /** Config of a target that fails (refused, missing, wrong answer): status down with an error, never a throw. */
  failing: () => Static<S>;
  /** Config of a target that never answers: for the timeout and abort cases. */
  hanging: () => Static<S>;
  /** Configs the check's schema must reject. */
  invalid?: unknown[];
  /** timeoutMs for the reachable and failing cases. Default 5000. */
  timeoutMs?: number;
}

/** Checks the shape every CheckResult must have, and that `data` matches the type's documented data schema. */
export function expectWellFormed(check: Pick<Check, "dataFields" | "dataSchema" | "type">, result: CheckResult): void {
  expect(CHECK_STATUSES).toContain(result.status);
  expect(Number.isFinite(result.duration_ms)).toBe(true);
  expect(result.duration_ms).toBeGreaterThanOrEqual(0);
  if (result.error !== undefined) expect(typeof result.error).toBe("string");
  if (result.status === "down" || result.status === "timeout") expect(result.error?.length ?? 0).toBeGreaterThan(0);
  for (const [key, value] of Object.entries(result.data)) {
    expect(Object.keys(check.dataFields)).toContain(key);
    const ok =
      value === null ||
      typeof value === "number" ||
      typeof value === "string" ||
      typeof value === "boolean" ||
      (Array.isArray(value) && value.every((v) => typeof v === "string")) ||
      (Array.isArray(value) && value.every((v) => v !== null && typeof v === "object" && Object.values(v).every((x) => x === null || ["number", "string", "boolean"].includes(typeof x))));
    expect(ok, `data.${key} has an unsupported type`).toBe(true);
  }
  for (const key of Object.keys(check.dataFields)) expect(result.data).toHaveProperty(key);
  expect([...Value.Errors(check.dataSchema, result.data)].map((e) => `data${e.path.replaceAll("/", ".")}: ${e.message}`)).toEqual([]);
}

/** The behaviour every check type promises; each type's own test calls this. */
export function runCheckContract<S extends TSchema>(check: Check<S>, fixtures: ContractFixtures<NoInfer<S>>): void {
  const ctx = (timeoutMs: number, extra: Partial<CheckContext> = {}): CheckContext => ({
    guard: { allowPrivate: true, ipv6: false },
    ...fixtures.context?.(),
    ...extra,
    timeoutMs,
  });
  const timeoutMs = fixtures.timeoutMs ?? 5000;

  describe(`${check.type} check contract`, () => {
    it("returns a well-formed result for a reachable target", async () => {
      const result = await check.run(fixtures.reachable(), ctx(timeoutMs));
      expectWellFormed(check, result);
      expect(result.status).not.toBe("timeout");
    });

    it("reports a failing target as a down result instead of throwing", async () => {
      const result = await check.run(fixtures.failing(), ctx(timeoutMs));
      expectWellFormed(check, result);
      expect(result.status).toBe("down");
    });

    it("returns status timeout once timeoutMs has elapsed", async () => {
      const started = performance.now();
      const result = await check.run(fixtures.hanging(), ctx(300));
      const elapsed = performance.now() - started;
      expectWellFormed(check, result);
      expect(result.status).toBe("timeout");
      expect(result.duration_ms).toBeGreaterThanOrEqual(290);
      expect(elapsed).toBeLessThan(1500);
    });

    it("rejects with CheckAbortedError soon after the caller aborts", async () => {
      const controller = new AbortController();
      const started = performance.now();
      setTimeout(() => controller.abort(), 100);
      const outcome = await check.run(fixtures.hanging(), ctx(10_000, { signal: controller.signal })).then(
        () => null,
        (err: unknown) => err,
      );
      expect(outcome).toBeInstanceOf(CheckAbortedError);
      expect(performance.now() - started).toBeLessThan(1000);
    });

    it("rejects at once when the caller had already aborted", async () => {
      const controller = new AbortController();
      controller.abort();
      await expect(check.run(fixtures.reachable(), ctx(timeoutMs, { signal: controller.signal }))).rejects.toBeInstanceOf(CheckAbortedError);
    });

    it("refuses its loopback target when private addresses are not allowed", async () => {
      const base = ctx(timeoutMs);
      const result = await check.run(fixtures.reachable(), { ...base, guard: { ...base.guard, allowPrivate: false } });
      expectWellFormed(check, result);
      expect(result.status).toBe("down");
      expect(result.error).toContain("refused to contact");
    });

    it("documents every data field it reports", () => {
      expect(check.dataSchema).toBe(dataSchemas[check.type]);
      expect(Object.keys(check.dataFields).length).toBeGreaterThan(0);
      for (const description of Object.values(check.dataFields)) expect(description.length).toBeGreaterThan(10);
    });

    it("accepts the fixture configs and rejects invalid ones", () => {
      for (const config of [fixtures.reachable(), fixtures.failing(), fixtures.hanging()]) {
        expect([...Value.Errors(check.configSchema, config)].map((e) => `${e.path}: ${e.message}`)).toEqual([]);
      }
      for (const config of fixtures.invalid ?? []) expect(Value.Check(check.configSchema, config)).toBe(false);
    });
  });
}
