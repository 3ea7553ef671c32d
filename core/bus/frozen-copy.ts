/**
 * A deep copy of a value as a JSON round trip would give it, with every object and array frozen: what
 * `JSON.parse(JSON.stringify(value))` returns (`toJSON` applied, so a Date becomes its ISO string;
 * undefined, functions and symbols left out of objects and null in arrays; NaN and ±Infinity null),
 * built in one walk instead of a string and a parse. The in-process bus stores one such copy per
 * message and hands the same copy to every consumer: what arrives is what the wire would deliver,
 * the publisher can change its object afterwards, and no consumer can change what another sees.
 */
export function frozenJsonCopy<T>(value: T): T {
  return copy(value, "") as T;
}

/**
 * Every object and array this module returned: already what a JSON round trip gives, and frozen, so one met again
 * (a monitor's config in each of its jobs, a result's data in its live event) is handed on as it is, not copied.
 */
const made = new WeakSet<object>();

const skipped = (v: unknown) => v === undefined || typeof v === "function" || typeof v === "symbol";

function copy(value: unknown, key: string): unknown {
  if (value === null) return null;
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : null;
    case "bigint":
      throw new TypeError("a BigInt does not serialise to JSON");
    case "object":
      break;
    default:
      return undefined;
  }
  if (made.has(value as object)) return value;
  const o = value as { toJSON?: (key: string) => unknown };
  if (typeof o.toJSON === "function") return copy(o.toJSON(key), key);
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      out[i] = skipped(item) ? null : (copy(item, String(i)) ?? null);
    }
    made.add(out);
    return Object.freeze(out);
  }
  if (value instanceof Number || value instanceof String || value instanceof Boolean) return value.valueOf();
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[k];
    if (skipped(item)) continue;
    const c = copy(item, k);
    if (c === undefined) continue;
    // An own "__proto__" key (JSON.parse makes one) stays a key; assigning it would set the prototype.
    if (k === "__proto__") Object.defineProperty(out, k, { value: c, enumerable: true, writable: true, configurable: true });
    else out[k] = c;
  }
  made.add(out);
  return Object.freeze(out);
}
