import type { Static, TObject, TSchema } from "@sinclair/typebox";
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

export interface CheckDefinition<T extends ExecutableCheckType, S extends TSchema> {
  type: T;
  configSchema: S;
  /** The result data (runner/checks/data-schemas.ts); `dataFields` is derived from it. */
  dataSchema: TObject;
  /** When true, data.response_time is set to the check's duration_ms. */
  reportsResponseTime?: boolean;
  /**
   * Measures the target. Throws for anything that went wrong with it (refused, reset, bad
   * certificate...): the error's message becomes the result's `error` with status "down".
   */
  probe(config: Static<S>, ctx: ProbeContext): Promise<ProbeOutcome>;
}

export type DefinedCheck<T extends ExecutableCheckType, S extends TSchema> = Check<S> & { readonly type: T };

/**
 * Wraps a probe with what every check type shares: the overall deadline (status "timeout"
 * with the data measured so far), caller abort (rejects with CheckAbortedError), errors
 * turned into "down" results, and duration_ms.
 */
export function defineCheck<T extends ExecutableCheckType, S extends TSchema>(def: CheckDefinition<T, S>): DefinedCheck<T, S> {
  const dataFields = describeFields(def.dataSchema);
  const fieldNames = Object.keys(dataFields);
  return {
    type: def.type,
    configSchema: def.configSchema,
    dataSchema: def.dataSchema,
    dataFields,
    run: (config, ctx) => runProbe(def, fieldNames, config, ctx),
  };
}

function runProbe<T extends ExecutableCheckType, S extends TSchema>(
  def: CheckDefinition<T, S>,
  fieldNames: string[],
  config: Static<S>,
  ctx: CheckContext,
): Promise<CheckResult> {
  if (ctx.signal?.aborted) return Promise.reject(new CheckAbortedError(def.type));
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
      if (def.reportsResponseTime) snapshot.response_time = duration_ms;
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
      controller.abort(new CheckAbortedError(def.type));
      reject(new CheckAbortedError(def.type));
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
        ctx.log?.debug({ op: "checks.run", type: def.type, err }, "check failed");
        resolve(finish("down", describeError(err), data));
      },
    );
  });
}
