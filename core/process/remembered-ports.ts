import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

type PortName = "EMBEDDED_PG_PORT" | "BILLING_SIM_PORT";

/**
 * Ports the all-in-one mode chose itself (its default was taken by another instance on the machine),
 * kept in DATA_DIR/ports.json so that a restart and the CLI find the same ones again.
 */
export function rememberedPort(dataDir: string, name: PortName): number | undefined {
  const file = join(dataDir, "ports.json");
  if (!existsSync(file)) return undefined;
  try {
    const port = (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>)[name];
    return typeof port === "number" && Number.isInteger(port) && port > 0 && port < 65536 ? port : undefined;
  } catch {
    return undefined;
  }
}

export function rememberPort(dataDir: string, name: PortName, port: number): void {
  const file = join(dataDir, "ports.json");
  let ports: Record<string, unknown> = {};
  try {
    ports = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>) : {};
  } catch {
    // A damaged file is rewritten.
  }
  if (ports[name] === port) return;
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${JSON.stringify({ ...ports, [name]: port }, null, 2)}\n`);
}

/** A port free on loopback now (the kernel's choice). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
