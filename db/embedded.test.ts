import { afterAll, expect, it } from "bun:test";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../core/config/parse-env.ts";
import { silentLogger } from "../core/log.ts";
import { startEmbeddedPostgres } from "./embedded.ts";

const dataDir = mkdtempSync(join(tmpdir(), "wp-embedded-port-"));
chmodSync(dataDir, 0o755);
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it("refuses to start on a taken port with a message naming EMBEDDED_PG_PORT", async () => {
  const squatter = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  try {
    const err = await startEmbeddedPostgres(dataDir, squatter.port, silentLogger).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toStartWith(`EMBEDDED_PG_PORT=${squatter.port} is taken by another process`);
    expect((err as Error).message).toContain("already in use");
  } finally {
    squatter.stop(true);
  }
}, 60_000);
