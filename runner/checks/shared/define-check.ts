import type { Static, TObject, TSchema } from "@sinclair/typebox";
import type { CheckSpec } from "../../../schemas/checks/check-spec.ts";
import { describeFields } from "../../../schemas/checks/data-fields.ts";
import { describeError } from "./describe-error.ts";
import { ms } from "./timing.ts";
import {
  CheckAbortedError,
  type Check,
  type CheckContext,
  type CheckData,
  type CheckResult,
  type ExecutableCheckType,
  type ProbeContext,
  type ProbeOutcome,
} from "../types.ts";

export interface CheckDefinition<S extends TSchema> {
  /**
   * Measures the target. Throws for anything that went wrong with it (refused, reset, bad
   * certificate...): the error's message becomes the result's `error` with status "down".
   */
  probe(config: Static<S>, ctx: ProbeContext): Promise<ProbeOutcome>;
}

/** What the wrapper needs of a check type's spec (schemas/checks/check-spec.ts). */
type RunSpec<T extends ExecutableCheckType, S extends TSchema> = Pick<CheckSpec<T, S, TObject>, "type" | "config" | "data" | "reportsResponseTime">;

export type DefinedCheck<T extends ExecutableCheckType, S extends TSchema> = Check<S> & { readonly type: T };

/**
 * Wraps a probe with what every check type shares: the overall deadline (status "timeout"
 * with the data measured so far), caller abort (rejects with CheckAbortedError), errors
 * turned into "down" results, and duration_ms.
 */
export function defineCheck<T extends ExecutableCheckType, S extends TSchema>(spec: RunSpec<T, S>, def: CheckDefinition<S>): DefinedCheck<T, S> {
  const dataFields = describeFields(spec.data);
  const fieldNames = Object.keys(dataFields);
  return {
    type: spec.type,
    configSchema: spec.config,
    dataSchema: spec.data,
    dataFields,
    run: (config, ctx) => runProbe(spec, def, fieldNames, config, ctx),
  };
}

function runProbe<T extends ExecutableCheckType, S extends TSchema>(
  spec: RunSpec<T, S>,
  def: CheckDefinition<S>,
  fieldNames: string[],
  config: Static<S>,
  ctx: CheckContext,
): Promise<CheckResult> {
  if (ctx.signal?.aborted) return Promise.reject(new CheckAbortedError(spec.type));
  const started = performance.now();
  const data: CheckData = {};
  for (const name of fieldNames) data[name] = null;
  const controller = new AbortController();
  const signal = controller.signal;
  const probeCtx: ProbeContext = {
    ...ctx,
    signal,
    data,
    guardOptions: { allowPrivate: ctx.guard.allowPrivate, ipv6: ctx.guard.ipv6, resolver: ctx.guard.resolver, signal },
  };

  return new Promise<CheckResult>((resolve, reject) => {
    let settled = false;
    const finish = (status: CheckResult["status"], error: string | undefined, snapshot: CheckData): CheckResult => {
      const duration_ms = ms(performance.now() - started);
      if (spec.reportsResponseTime) snapshot.response_time = duration_ms;
      return error === undefined ? { status, duration_ms, data: snapshot } : { status, duration_ms, error, data: snapshot };
    };
    const cleanup = () => {
      settled = true;
      clearTimeout(timer);
      ctx.signal?.removeEventListener("abort", onCallerAbort);
    };
    const onCallerAbort = () => {
      if (settled) return;
      cleanup();
      controller.abort(new CheckAbortedError(spec.type));
      reject(new CheckAbortedError(spec.type));
    };
    const timer = setTimeout(() => {
      if (settled) return;
      cleanup();
      const result = finish("timeout", `no answer within ${ctx.timeoutMs} ms`, { ...data });
      controller.abort(new Error(`timed out after ${ctx.timeoutMs} ms`));
      resolve(result);
    }, ctx.timeoutMs);
    ctx.signal?.addEventListener("abort", onCallerAbort, { once: true });

    def.probe(config, probeCtx).then(
      (outcome) => {
        if (settled) return;
        cleanup();
        resolve(finish(outcome.status, outcome.error, data));
      },
      (err: unknown) => {
        if (settled) return;
        cleanup();
        ctx.log?.debug({ op: "checks.run", type: spec.type, err }, "check failed");
        resolve(finish("down", describeError(err), data));
      },
    );
  });
}
