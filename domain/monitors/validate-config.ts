import type { TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { Value } from "@sinclair/typebox/value";
import { type CheckType, checkTypes, configSchemas } from "../../schemas/check-types.ts";
import type { CheckSpec } from "../../schemas/checks/check-spec.ts";
import { validationError } from "../../core/errors.ts";

const compiled = new Map<CheckType, TypeCheck<TSchema>>();

function validator(type: CheckType): TypeCheck<TSchema> {
  let v = compiled.get(type);
  if (!v) compiled.set(type, (v = TypeCompiler.Compile(configSchemas[type] as TSchema)));
  return v;
}

/**
 * Validates a monitor's `config` against its type's schema, with issue paths such as
 * `body.config.url`, then the type's own cross-field rules (configIssues), and returns it with the schema's defaults filled in.
 */
export function validateCheckConfig(type: CheckType, config: unknown): Record<string, unknown> {
  const v = validator(type);
  const withDefaults = Value.Default(configSchemas[type] as TSchema, structuredClone(config));
  if (!v.Check(withDefaults)) {
    const issues = [...v.Errors(withDefaults)].slice(0, 20).map((e) => ({ path: `body.config${e.path.replaceAll("/", ".")}`, message: e.message }));
    throw validationError(issues, `Invalid ${type} config`);
  }
  const more = (checkTypes[type] as CheckSpec).configIssues?.(withDefaults as Record<string, unknown>) ?? [];
  if (more.length > 0) {
    throw validationError(more.map((i) => ({ path: i.field ? `body.config.${i.field}` : "body.config", message: i.message })), `Invalid ${type} config`);
  }
  return withDefaults as Record<string, unknown>;
}
