import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { arch, tmpdir } from "node:os";
import { join } from "node:path";
import { collectResults, orgWithRunner, publishHttpJob, spawnRunner, startTarget, startTlsApi, type TlsApi } from "./support.ts";

const root = join(import.meta.dir, "..", "..");
const dist = mkdtempSync(join(tmpdir(), "wp-runner-bin-"));
const binary = join(dist, `runner-linux-${arch() === "arm64" ? "arm64" : "x64"}`);
let api: TlsApi;
let target: ReturnType<typeof startTarget>;

beforeAll(async () => {
  const build = Bun.spawn(["bash", join(root, "scripts/build-runner.sh"), "--host-only"], { cwd: root, env: { ...process.env, DIST_DIR: dist }, stdout: "pipe", stderr: "pipe" });
  const code = await build.exited;
  if (code !== 0) throw new Error(`build-runner.sh failed: ${await new Response(build.stderr).text()}`);
  api = await startTlsApi();
  target = startTarget();
}, 120_000);
afterAll(async () => {
  await target?.stop();
  await api?.stop();
  rmSync(dist, { recursive: true, force: true });
});

describe("the standalone runner binary (scripts/build-runner.sh, bun build --compile)", () => {
  it("refuses a bad environment with the same message and exit code as the source", async () => {
    const proc = spawnRunner({ SERVICE_API_URL: "http://127.0.0.1:3000", SERVICE_TOKEN: "rt_abcdefghijklmnop" }, { command: [binary] });
    expect(await proc.exited).toBe(78);
    expect(proc.output()).toMatch(/SERVICE_API_URL.*plain HTTP is refused/);
  });

  it("connects over HTTPS with an encrypted session, runs a check and exits 0 on SIGTERM", async () => {
    const { org, runner, call } = await orgWithRunner(api);
    const results = await collectResults(api.bus, org.org_id);
    const proc = spawnRunner(
      { SERVICE_API_URL: api.url, SERVICE_TOKEN: runner.token, ALLOW_PRIVATE_IPS: "true", POLL_INTERVAL_MS: "1000", HEARTBEAT_INTERVAL_MS: "5000", NODE_EXTRA_CA_CERTS: api.caFile },
      { command: [binary] },
    );
    await proc.waitForOutput("runner connected");
    const job = await publishHttpJob(api.bus, org.org_id, runner.id, "mon_bin", `${target.url}/ok`);
    expect((await results.waitFor((x) => x.id === job.id)).status).toBe("up");
    expect((await call("GET", `/api/v1/runners/${runner.id}/status`)).body).toMatchObject({ status: "online", encrypted: true });
    proc.proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    await results.stop();
  }, 30_000);
});
