import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { collectResults, orgWithRunner, publishHttpJob, spawnRunner, startTarget, startTlsApi, type TlsApi } from "./support.ts";

let api: TlsApi;
let target: ReturnType<typeof startTarget>;
// /tmp gets a fresh tmpfs inside the runner's mount namespace, so the test CA must live elsewhere.
const caOutsideTmp = `/dev/shm/wp-runner-ro-ca-${process.pid}.pem`;
beforeAll(async () => {
  api = await startTlsApi();
  target = startTarget();
  copyFileSync(api.caFile, caOutsideTmp);
});
afterAll(async () => {
  rmSync(caOutsideTmp, { force: true });
  await target.stop();
  await api.stop();
});

/**
 * The container contract without Docker: a private mount namespace in which every mount is
 * read-only except a fresh 256 MB tmpfs on /tmp (`--read-only --tmpfs /tmp:size=256m`), and HOME
 * points at a directory that does not exist, as in the standard image.
 */
const READ_ONLY_ROOT = [
  "unshare",
  "--mount",
  "--propagation",
  "private",
  "sh",
  "-c",
  'set -e; for m in $(awk \'{print $2}\' /proc/self/mounts | sort -u); do case "$m" in /proc*|/sys*|/dev*) ;; *) mount -o remount,bind,ro "$m" 2>/dev/null || true ;; esac; done; mount -t tmpfs -o size=256m,mode=1777 tmpfs /tmp; touch /probe-root 2>/dev/null && exit 90; exec "$@"',
  "read-only-root",
];

describe("runner on a read-only root filesystem", () => {
  it("connects, runs checks and stops cleanly with only /tmp writable", async () => {
    const { org, runner } = await orgWithRunner(api);
    const results = await collectResults(api.bus, org.org_id);
    const proc = spawnRunner(
      {
        SERVICE_API_URL: api.url,
        SERVICE_TOKEN: runner.token,
        RUNNER_NAME: "ro-runner",
        ALLOW_PRIVATE_IPS: "true",
        POLL_INTERVAL_MS: "1000",
        HEARTBEAT_INTERVAL_MS: "5000",
        NODE_EXTRA_CA_CERTS: caOutsideTmp,
        HOME: "/home/runner-does-not-exist",
        TMPDIR: "/tmp",
      },
      { wrap: READ_ONLY_ROOT },
    );
    await proc.waitForOutput("runner connected");
    const job = await publishHttpJob(api.bus, org.org_id, runner.id, "mon_ro", `${target.url}/ok`);
    expect((await results.waitFor((x) => x.id === job.id)).status).toBe("up");
    proc.proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    expect(proc.output()).not.toMatch(/EROFS|read-only file system/i);
    await results.stop();
  }, 30_000);

  it("the namespace really is read-only outside /tmp", async () => {
    const probe = Bun.spawn([...READ_ONLY_ROOT, "sh", "-c", `touch ${join(import.meta.dir, "ro-probe")} 2>/dev/null && echo root-writable; touch /tmp/x && echo tmp-writable`], { stdout: "pipe" });
    expect((await new Response(probe.stdout).text()).trim()).toBe("tmp-writable");
    expect(await probe.exited).toBe(0);
  });
});
