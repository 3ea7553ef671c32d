import { isSecretHeader } from "../../../schemas/checks/secret-headers.ts";

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
