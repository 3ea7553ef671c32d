import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomToken } from "../ids.ts";

/** The previous keys of a rotation, from SECRET_KEY_PREVIOUS (comma-separated). */
export const previousSecretKeys = (configured: string | undefined): string[] => (configured ? configured.split(",").map((k) => k.trim()).filter(Boolean) : []);

/** SECRET_KEY when given; otherwise one generated once into DATA_DIR/secret.key (all-in-one mode). */
export function loadSecretKey(configured: string | undefined, dataDir: string): string {
  if (configured) return configured;
  const file = join(dataDir, "secret.key");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dataDir, { recursive: true });
  const key = randomToken(48);
  writeFileSync(file, key + "\n", { mode: 0o600 });
  return key;
}
