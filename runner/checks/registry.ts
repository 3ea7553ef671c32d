import type { TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { browserChecks, checks } from "./run-registry.gen.ts";
import {
  BROWSER_CHECK_TYPES,
  type BrowserCheckType,
  EXECUTABLE_CHECK_TYPES,
  InvalidCheckJobError,
  type Check,
  type CheckContext,
  type CheckJob,
  type CheckResult,
  type ExecutableCheckType,
  type RunnableCheckType,
} from "./types.ts";

/** The engine's registry is generated from schemas/check-types.ts (scripts/gen-registries.ts). */
export { checks };

/** What the runner around the engine supplies; everything but the job itself. */
export type RunCheckOptions = Omit<CheckContext, "timeoutMs" | "guard"> & Pick<Partial<CheckContext["guard"]>, "resolver">;

const MAX_TIMEOUT_MS = 120_000;

const validators = new Map<RunnableCheckType, TypeCheck<TSchema>>();

const checkOf = (type: RunnableCheckType): Check => (isBrowserCheckType(type) ? browserChecks[type] : checks[type]) as Check;

function validatorFor(type: RunnableCheckType): TypeCheck<TSchema> {
  let validator = validators.get(type);
  if (!validator) {
    validator = TypeCompiler.Compile(checkOf(type).configSchema as TSchema);
    validators.set(type, validator);
  }
  return validator;
}

function isExecutableCheckType(type: unknown): type is ExecutableCheckType {
  return typeof type === "string" && (EXECUTABLE_CHECK_TYPES as readonly string[]).includes(type);
}

function isBrowserCheckType(type: unknown): type is BrowserCheckType {
  return typeof type === "string" && (BROWSER_CHECK_TYPES as readonly string[]).includes(type);
}

/** Standard or browser: a type some worker runs (heartbeat is the one that never runs). */
export function isRunnableCheckType(type: unknown): type is RunnableCheckType {
  return isExecutableCheckType(type) || isBrowserCheckType(type);
}

/**
 * Runs one job. Resolves with a result for anything the target does (including timeouts);
 * rejects with InvalidCheckJobError for a job that cannot run as given, with
 * CheckUnavailableError for a browser check this context has no browser for, and with
 * CheckAbortedError when options.signal fires.
 */
export async function runCheck(job: CheckJob, options: RunCheckOptions = {}): Promise<CheckResult> {
  if (!isRunnableCheckType(job.type)) throw new InvalidCheckJobError(`check type ${String(job.type)} does not run on this engine`);
  if (!Number.isFinite(job.timeoutMs) || job.timeoutMs <= 0 || job.timeoutMs > MAX_TIMEOUT_MS) {
    throw new InvalidCheckJobError(`timeoutMs must be between 1 and ${MAX_TIMEOUT_MS}, got ${job.timeoutMs}`);
  }
  const validator = validatorFor(job.type);
  if (!validator.Check(job.config)) {
    const issues = [...validator.Errors(job.config)].slice(0, 10).map((e) => `${e.path || "/"}: ${e.message}`);
    throw new InvalidCheckJobError(`invalid ${job.type} config`, issues);
  }
  const { resolver, ...rest } = options;
  const check = checkOf(job.type);
  return check.run(job.config, {
    ...rest,
    timeoutMs: job.timeoutMs,
    guard: { allowPrivate: job.allowPrivate, ipv6: job.ipv6, resolver },
  });
}
