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
  const run = new ProbeRun(spec, fieldNames, ctx);
  def.probe(config, run.probeCtx).then(
    (outcome) => run.outcome(outcome),
    (err: unknown) => run.failed(err),
  );
  return run.promise;
}

function onDeadline(run: ProbeRun): void {
  run.deadline();
}

/**
 * One probe's run: its deadline timer, its caller-abort listener (the object itself) and how it
 * settles. One object per check instead of a closure per event.
 */
class ProbeRun {
  readonly promise: Promise<CheckResult>;
  readonly probeCtx: ProbeContext;
  private readonly started = performance.now();
  private readonly data: CheckData = {};
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;
  private settled = false;
  private resolve!: (result: CheckResult) => void;
  private reject!: (err: Error) => void;

  constructor(
    private readonly spec: Pick<RunSpec<ExecutableCheckType, TSchema>, "type" | "reportsResponseTime">,
    fieldNames: string[],
    private readonly ctx: CheckContext,
  ) {
    for (const name of fieldNames) this.data[name] = null;
    const signal = this.controller.signal;
    this.probeCtx = {
      ...ctx,
      signal,
      data: this.data,
      guardOptions: { allowPrivate: ctx.guard.allowPrivate, ipv6: ctx.guard.ipv6, resolver: ctx.guard.resolver, signal },
      // Set from the start, so the steps that name themselves later do not change the context's shape mid-check.
      waitingFor: undefined,
    };
    this.promise = new Promise<CheckResult>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.timer = setTimeout(onDeadline, ctx.timeoutMs, this);
    ctx.signal?.addEventListener("abort", this, { once: true });
  }

  outcome(outcome: ProbeOutcome): void {
    if (!this.settle()) return;
    this.resolve(this.finish(outcome.status, outcome.error, this.data));
  }

  failed(err: unknown): void {
    if (!this.settle()) return;
    this.ctx.log?.debug({ op: "checks.run", type: this.spec.type, err }, "check failed");
    this.resolve(this.finish("down", describeError(err), this.data));
  }

  deadline(): void {
    if (!this.settle()) return;
    const result = this.finish("timeout", `no ${this.probeCtx.waitingFor ?? "answer"} within ${this.ctx.timeoutMs} ms`, { ...this.data });
    this.controller.abort(new Error(`timed out after ${this.ctx.timeoutMs} ms`));
    this.resolve(result);
  }

  /** The caller's signal fired. */
  handleEvent(): void {
    if (!this.settle()) return;
    this.controller.abort(new CheckAbortedError(this.spec.type));
    this.reject(new CheckAbortedError(this.spec.type));
  }

  /** False when the run had already settled; otherwise stops the timer and the caller's listener. */
  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    clearTimeout(this.timer);
    this.ctx.signal?.removeEventListener("abort", this);
    return true;
  }

  private finish(status: CheckResult["status"], error: string | undefined, snapshot: CheckData): CheckResult {
    const duration_ms = ms(performance.now() - this.started);
    if (this.spec.reportsResponseTime) snapshot.response_time = duration_ms;
    return error === undefined ? { status, duration_ms, data: snapshot } : { status, duration_ms, error, data: snapshot };
  }
}
