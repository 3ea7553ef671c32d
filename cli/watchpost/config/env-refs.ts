/** `${NAME}` references to environment variables in config strings (secrets never live in the file). */
const REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** What the API shows in place of a stored secret (monitor headers and passwords). */
export const MASK = "••••••••";
export const isMasked = (v: unknown) => typeof v === "string" && v.includes("••••");

export const hasRef = (v: unknown): v is string => typeof v === "string" && /\$\{[A-Za-z_][A-Za-z0-9_]*\}/.test(v);

/**
 * A copy of `value` with every `${NAME}` replaced from `env`. A string whose variables are not all set
 * becomes `unresolved(original)` (apply then keeps the stored secret, or refuses to create); the names
 * missing are added to `missing`.
 */
export function resolveRefs(value: unknown, env: NodeJS.ProcessEnv, missing: Set<string>, unresolved: (original: string) => unknown = () => MASK): unknown {
  if (typeof value === "string") {
    if (!hasRef(value)) return value;
    let ok = true;
    const out = value.replace(REF, (_, name: string) => {
      const v = env[name];
      if (v === undefined) {
        ok = false;
        missing.add(name);
        return "";
      }
      return v;
    });
    return ok ? out : unresolved(value);
  }
  if (Array.isArray(value)) return value.map((v) => resolveRefs(v, env, missing, unresolved));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveRefs(v, env, missing, unresolved)]));
  return value;
}
