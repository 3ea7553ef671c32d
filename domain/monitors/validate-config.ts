import type { TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { Value } from "@sinclair/typebox/value";
import { type CheckType, checkTypes, configSchemas } from "../../schemas/check-types.ts";
import { validationError } from "../../core/errors.ts";

const compiled = new Map<CheckType, TypeCheck<TSchema>>();

function validator(type: CheckType): TypeCheck<TSchema> {
  let v = compiled.get(type);
  if (!v) compiled.set(type, (v = TypeCompiler.Compile(configSchemas[type] as TSchema)));
  return v;
}

/**
 * Validates a monitor's `config` against its type's schema, with issue paths such as
 * `body.config.url`, and returns it with the schema's defaults filled in.
 */
export function validateCheckConfig(type: CheckType, config: unknown): Record<string, unknown> {
  const v = validator(type);
  const withDefaults = Value.Default(configSchemas[type] as TSchema, structuredClone(config));
  if (!v.Check(withDefaults)) {
    const issues = [...v.Errors(withDefaults)].slice(0, 20).map((e) => ({ path: `body.config${e.path.replaceAll("/", ".")}`, message: issueMessage(e) }));
    throw validationError(issues, `Invalid ${type} config`);
  }
  const validateMore = (checkTypes[type] as { validate?: (config: unknown) => Array<{ path: string; message: string }> }).validate;
  const more = validateMore?.(withDefaults) ?? [];
  if (more.length > 0) {
    throw validationError(
      more.slice(0, 20).map((i) => ({ path: i.path ? `body.config.${i.path}` : "body.config", message: i.message })),
      `Invalid ${type} config: ${more[0]!.path ? `${more[0]!.path}: ` : ""}${more[0]!.message}`,
    );
  }
  return withDefaults as Record<string, unknown>;
}

/** A union of literals (an operator, a method) names its choices instead of "Expected union value". */
function issueMessage(e: { message: string; schema: unknown }): string {
  const options = (e.schema as { anyOf?: Array<{ const?: unknown }> }).anyOf;
  if (options?.length && options.every((o) => o.const !== undefined)) return `Expected one of: ${options.map((o) => String(o.const)).join(", ")}`;
  return e.message;
}
