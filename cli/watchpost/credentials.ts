import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { CliError } from "./errors.ts";

export interface StoredCredentials {
  url: string;
  api_key: string;
}

/** `$XDG_CONFIG_HOME/watchpost/config.json` (XDG_CONFIG_HOME defaults to ~/.config). */
export function credentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith("/") ? env.XDG_CONFIG_HOME : join(homedir(), ".config");
  return join(base, "watchpost", "config.json");
}

export function readCredentials(env: NodeJS.ProcessEnv = process.env): StoredCredentials | null {
  const path = credentialsPath(env);
  if (!existsSync(path)) return null;
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<StoredCredentials>;
    return typeof parsed.url === "string" && typeof parsed.api_key === "string" ? { url: parsed.url, api_key: parsed.api_key } : null;
  } catch {
    throw new CliError(`${path} is not valid JSON: run watchpost login again`);
  }
}

/** Writes the file readable by its owner only (0600), its folder 0700. */
export function writeCredentials(creds: StoredCredentials, env: NodeJS.ProcessEnv = process.env): string {
  const path = credentialsPath(env);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(creds, null, 2)}\n`, { mode: 0o600 });
  // writeFileSync keeps the mode of a file that already existed.
  chmodSync(path, 0o600);
  return path;
}
