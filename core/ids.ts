import { randomBytes } from "node:crypto";

/** Time-sortable resource id with a type prefix, e.g. `mon_0193...`. */
export function newId(prefix: string): string {
  return `${prefix}_${Bun.randomUUIDv7().replaceAll("-", "")}`;
}

/** A URL-safe secret of `bytes` random bytes (base64url). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}
