import type { TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { ValueErrorType, type ValueError } from "@sinclair/typebox/errors";
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
    const issues = oneIssuePerField([...v.Errors(withDefaults)].flatMap(intoChosenVariant)).slice(0, 20).map((e) => ({ path: `body.config${e.path.replaceAll("/", ".")}`, message: issueMessage(e) }));
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

/**
 * A value that matches no member of a union of objects told apart by one literal property (a flow step's
 * `action`): the issues of the member its discriminator names, or that discriminator's choices when it names none.
 */
function intoChosenVariant(e: ValueError): ValueError[] {
  const members = (e.schema as { anyOf?: TSchema[] }).anyOf;
  if (e.type !== ValueErrorType.Union || !members?.length || e.value === null || typeof e.value !== "object") return [e];
  const key = discriminator(members);
  if (!key) return [e];
  const tag = (e.value as Record<string, unknown>)[key];
  const chosen = members.find((m) => (m.properties as Record<string, { const?: unknown }>)[key]!.const === tag);
  if (!chosen) {
    const choices = members.map((m) => String((m.properties as Record<string, { const?: unknown }>)[key]!.const));
    return [{ ...e, path: `${e.path}/${key}`, value: tag, message: `Expected one of: ${choices.join(", ")}`, schema: { anyOf: choices.map((c) => ({ const: c })) } as unknown as TSchema }];
  }
  return [...Value.Errors(chosen, e.value)].map((inner) => ({ ...inner, path: `${e.path}${inner.path}` })).flatMap(intoChosenVariant);
}

/** The property every member of a union of objects has as a different literal, if there is one. */
function discriminator(members: TSchema[]): string | undefined {
  const first = members[0]!.properties as Record<string, { const?: unknown }> | undefined;
  if (!first) return undefined;
  return Object.keys(first).find((key) => {
    const tags = members.map((m) => (m.properties as Record<string, { const?: unknown }> | undefined)?.[key]?.const);
    return tags.every((t) => typeof t === "string") && new Set(tags).size === members.length;
  });
}

/** A text that is too short and not in its form is said once, by its form ("ftp://x" is not an http(s) URL). */
function oneIssuePerField(errors: ValueError[]): ValueError[] {
  const patterned = new Set(errors.filter((e) => e.type === ValueErrorType.StringPattern).map((e) => e.path));
  // A missing property is also "Expected string" (undefined is no string): said once, as missing.
  const missing = new Set(errors.filter((e) => e.type === ValueErrorType.ObjectRequiredProperty).map((e) => e.path));
  return errors.filter(
    (e) => (e.type !== ValueErrorType.StringMinLength || !patterned.has(e.path)) && (e.type === ValueErrorType.ObjectRequiredProperty || !missing.has(e.path)),
  );
}

/**
 * A union of literals (an operator, a method) names its choices instead of "Expected union value";
 * a pattern, or a union that describes itself, is said by the field's description, never by its regular expression.
 */
function issueMessage(e: { type: ValueErrorType; path: string; message: string; schema: unknown }): string {
  const schema = e.schema as { anyOf?: Array<{ const?: unknown }>; description?: string };
  const options = schema.anyOf;
  if (options?.length && options.every((o) => o.const !== undefined)) return `Expected one of: ${options.map((o) => String(o.const)).join(", ")}`;
  if (e.type === ValueErrorType.ObjectRequiredProperty) return `Property '${e.path.slice(e.path.lastIndexOf("/") + 1)}' is missing`;
  if (e.type === ValueErrorType.StringPattern || e.type === ValueErrorType.Union) {
    if (schema.description) return `Expected ${lowerFirst(schema.description)}`;
    if (e.type === ValueErrorType.StringPattern) return "Expected a value in the form the field's description gives (see the type's Config schema)";
  }
  return e.message;
}

/** "Host name…" → "host name…"; "DNS server…" stays. */
const lowerFirst = (text: string) => (/^[A-Z](?![A-Z])/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text);
