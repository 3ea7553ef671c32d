import { isSecretHeader } from "../../../schemas/checks/secret-headers.ts";
import { hasRef, resolveRefs } from "./env-refs.ts";

const SHOWN = "(secret)";

/** Whether `path` (config-relative, e.g. ["auth","password"] or ["headers","X-Token"]) holds a secret the API masks. */
export function isSecretPath(path: string[], config: Record<string, unknown>): boolean {
  if (path[0] === "auth" && (path[1] === "password" || path[1] === "token")) return true;
  if (path[0] === "headers" && path.length === 2) return isSecretHeader(path[1]!, (config.secret_headers as string[] | undefined) ?? []);
  return false;
}

/** A copy of a config fit to print: every secret value replaced by "(secret)". */
export function redactConfig(config: Record<string, unknown>): Record<string, unknown> {
  const out = structuredClone(config) as Record<string, any>;
  if (out.auth && typeof out.auth === "object") {
    if ("password" in out.auth) out.auth.password = SHOWN;
    if ("token" in out.auth) out.auth.token = SHOWN;
  }
  if (out.headers && typeof out.headers === "object") for (const h of Object.keys(out.headers)) if (isSecretPath(["headers", h], config)) out.headers[h] = SHOWN;
  return out;
}

export const redactedValue = SHOWN;

/** The unset variables of references in config fields the API does not store as secrets. */
export function unsetOutsideSecrets(value: unknown, env: NodeJS.ProcessEnv, path: string[] = [], root = value as Record<string, unknown>, out = new Set<string>()): Set<string> {
  if (typeof value === "string") {
    if (hasRef(value) && !isSecretPath(path, root)) resolveRefs(value, env, out);
  } else if (Array.isArray(value)) value.forEach((v, i) => unsetOutsideSecrets(v, env, [...path, String(i)], root, out));
  else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) unsetOutsideSecrets(v, env, [...path, k], root, out);
  return out;
}

/** An unset variable that `apply` would refuse a change for: a new monitor's or channel's, or a monitor field that is not a stored secret. */
export interface UnsetVariable {
  variable: string;
  kind: "monitor" | "channel";
  key: string;
  action: "create" | "update";
}

/**
 * What `apply` needs set, in the order of the changes: every variable of a monitor or channel it creates, and those
 * of an updated monitor's fields that are not stored secrets (an unset secret keeps the stored one).
 */
export function unsetForApply(changes: readonly { kind: string; action: string; key: string; desired?: unknown }[], env: NodeJS.ProcessEnv): UnsetVariable[] {
  const out: UnsetVariable[] = [];
  for (const c of changes) {
    if ((c.kind !== "monitor" && c.kind !== "channel") || (c.action !== "create" && c.action !== "update")) continue;
    const config = (c.desired as { config: Record<string, unknown> }).config;
    const missing = new Set<string>();
    if (c.action === "create") resolveRefs(config, env, missing);
    else if (c.kind === "monitor") unsetOutsideSecrets(config, env, [], config, missing);
    for (const variable of missing) out.push({ variable, kind: c.kind, key: c.key, action: c.action });
  }
  return out;
}
