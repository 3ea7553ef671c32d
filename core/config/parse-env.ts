import { type Static, type TObject, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

export class ConfigError extends Error {}

/**
 * Parses environment variables against a TypeBox object whose keys are the variable names.
 * Strings are converted to the declared types; the first bad value throws a ConfigError
 * that names the variable and its rule.
 */
export function parseEnv<T extends TObject>(schema: T, env: Record<string, string | undefined>): Static<T> {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = env[key];
    if (value === undefined || value === "") continue;
    const isBool = (schema.properties[key] as { type?: string }).type === "boolean";
    raw[key] = isBool ? (BOOL_WORDS[value.trim().toLowerCase()] ?? value) : value;
  }
  const withDefaults = Value.Default(schema, Value.Convert(schema, raw)) as Record<string, unknown>;
  const errors = [...Value.Errors(schema, withDefaults)];
  if (errors.length > 0) {
    const first = errors[0]!;
    const name = first.path.replace(/^\//, "").split("/")[0] || "environment";
    const prop = schema.properties[name] as { description?: string } | undefined;
    const rule = prop?.description ? ` (${prop.description})` : "";
    throw new ConfigError(`Invalid environment variable ${name}=${shown(name, env[name] ?? "")}: ${first.message}${rule}`);
  }
  return withDefaults as Static<T>;
}

const BOOL_WORDS: Record<string, string> = { true: "true", yes: "true", on: "true", "1": "true", false: "false", no: "false", off: "false", "0": "false" };

/** The rejected value as the message shows it: secrets hidden, a URL without its password. */
function shown(name: string, value: string): string {
  if (/SECRET|PASSWORD|TOKEN|_KEY$/.test(name)) return "[redacted]";
  return JSON.stringify(value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, "$1:[redacted]@"));
}

/** Boolean environment variable: true/false/1/0/yes/no/on/off. */
export const EnvBool = (defaultValue: boolean, description: string) =>
  Type.Boolean({ default: defaultValue, description: `${description}; true or false (also 1/0, yes/no, on/off)` });

/** Prints a ConfigError to stderr and exits; anything else is rethrown. */
export function exitOnConfigError(err: unknown): never {
  if (err instanceof ConfigError) {
    process.stderr.write(`watchpost: ${err.message}\n`);
    process.exit(78);
  }
  throw err;
}
