import { Type } from "@sinclair/typebox";

/**
 * Request headers whose values are credentials. Their values are stored encrypted and shown
 * redacted; docs/monitors.md lists the same rule. Matching is case-insensitive.
 */
const SECRET_HEADER_NAMES = ["authorization", "proxy-authorization", "cookie", "x-api-key"] as const;

/** A header whose name contains one of these is a secret too (X-Auth-Token, X-Client-Secret, Api-Key, X-Session-Id…). */
const SECRET_HEADER_PARTS = ["token", "secret", "key", "auth", "password", "passwd", "session", "credential", "signature", "cookie"] as const;

/** Whether a header is secret by its name, or because the monitor's `secret_headers` lists it. */
export function isSecretHeader(name: string, marked: readonly string[] = []): boolean {
  const n = name.toLowerCase();
  if ((SECRET_HEADER_NAMES as readonly string[]).includes(n)) return true;
  if (SECRET_HEADER_PARTS.some((p) => n.includes(p))) return true;
  return marked.some((m) => m.toLowerCase() === n);
}

/** `secret_headers` of checks that send request headers: more names (any case) whose values are secret. */
export const secretHeadersSchema = Type.Optional(
  Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
    maxItems: 50,
    description: `Names of more headers whose values are secret: stored encrypted, shown as ••••••••, and kept when •••••••• is sent back. Secret without being listed: ${SECRET_HEADER_NAMES.join(", ")} and names containing ${SECRET_HEADER_PARTS.join(", ")}`,
  }),
);
