import { afterAll, describe, expect, it } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../support/free-port.ts";

// Issue 20, item 2: `npm start` with no payment provider is a self-hosted installation — one unlimited
// plan, no billing simulator, and the local region may check private targets. BILLING=simulator is explicit.

const root = join(import.meta.dir, "..", "..");
const dataDir = mkdtempSync(join(tmpdir(), "wp-selfhosted-"));
// Run as root, the embedded server runs as a separate postgres user that must reach the folder.
chmodSync(dataDir, 0o755);

const port = freePort();
const base = `http://127.0.0.1:${port}`;
// As a new user runs it: none of the billing, private-address or simulator variables set.
const { BILLING: _b, BILLING_SIMULATOR: _bs, BILLING_SIM_PORT: _bp, ALLOW_PRIVATE_IPS: _ap, IPV6_EGRESS: _v6, PADDLE_API_KEY: _pk, PADDLE_WEBHOOK_SECRETS: _pw, ...parent } = process.env;
const env = { ...parent, DATABASE_URL: "", NATS_URL: "", DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", EMBEDDED_PG_PORT: String(freePort()), LOG_LEVEL: "info", LOG_FORMAT: "json" };

const target = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("fine") });
// An IPv6 service on the same machine (the user walk's `::1`).
const target6 = Bun.serve({ hostname: "::1", port: 0, fetch: () => new Response("fine over IPv6") });
afterAll(() => {
  target.stop(true);
  target6.stop(true);
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(extra: Record<string, string> = {}) {
  const proc = Bun.spawn(["bun", "scripts/start.ts"], { cwd: root, env: { ...env, ...extra }, stdout: "pipe", stderr: "pipe" });
  let out = "";
  void (async () => {
    for await (const chunk of proc.stdout) out += new TextDecoder().decode(chunk);
  })();
  const deadline = Date.now() + 60_000;
  while (!(await fetch(`${base}/readyz`).then((r) => r.status === 200, () => false))) {
    if (proc.exitCode !== null) throw new Error(`exited ${proc.exitCode}: ${await new Response(proc.stderr).text()}`);
    if (Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error("did not become ready in 60 s");
    }
    await Bun.sleep(200);
  }
  return { proc, log: () => out };
}

/**
 * Makes an account and returns a caller with the new session (cookie and CSRF token): the first-run setup while the
 * installation has no organisation (as a self-hoster's first visit does), sign-up afterwards.
 */
async function signUp(email: string) {
  const needed = ((await fetch(`${base}/api/v1/setup`).then((r) => r.json())) as { needed: boolean }).needed;
  const res = await fetch(`${base}/api/v1/${needed ? "setup" : "auth/signup"}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: "a long password", name: "Self Hoster", ...(needed ? { org_name: "Home lab" } : {}) }),
  });
  expect(res.status).toBe(201);
  const cookies = res.headers.getSetCookie().map((c) => c.split(";")[0]!);
  const csrf = cookies.find((c) => c.startsWith("wp_csrf="))?.split("=")[1] ?? "";
  return async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${base}${path}`, {
      method,
      headers: { "content-type": "application/json", cookie: cookies.join("; "), "x-csrf-token": csrf },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: (await r.json().catch(() => null)) as any };
  };
}

const ports = () => (existsSync(join(dataDir, "ports.json")) ? (JSON.parse(readFileSync(join(dataDir, "ports.json"), "utf8")) as Record<string, number>) : {});

describe("the all-in-one mode without a payment provider", () => {
  it("is self-hosted: the unlimited plan, a 60-second monitor of a loopback target checked up, no simulator, one log line saying so", async () => {
    const { proc, log } = await start();
    try {
      const call = await signUp("owner@example.test");
      const sub = await call("GET", "/api/v1/billing/subscription");
      expect(sub.status).toBe(200);
      expect(sub.body).toMatchObject({ billing_enabled: false, status: "active", plan: { id: "unlimited", name: "Self-hosted (unlimited)" } });

      const created = await call("POST", "/api/v1/monitors", { name: "NAS", type: "http", config: { url: `http://127.0.0.1:${target.port}/` }, interval_seconds: 60 });
      expect(created.status).toBe(201);
      expect((await call("POST", `/api/v1/monitors/${created.body.id}/run`)).status).toBeLessThan(300);
      let status = "pending";
      for (const deadline = Date.now() + 30_000; status !== "up" && Date.now() < deadline; await Bun.sleep(300)) status = (await call("GET", `/api/v1/monitors/${created.body.id}`)).body.status;
      expect(status).toBe("up");

      // IPv6 targets too: the machine has IPv6 (::1), and a self-hosted local region may use it.
      const tcp6 = await call("POST", "/api/v1/monitors/test", { type: "tcp", config: { host: "::1", port: target6.port } });
      expect(tcp6.body).toMatchObject({ status: "up", data: { ip: "::1" } });
      const http6 = await call("POST", "/api/v1/monitors/test", { type: "http", config: { url: `http://[::1]:${target6.port}/` } });
      expect(http6.body).toMatchObject({ status: "up", data: { ip: "::1" } });

      // No simulator: it never took a port (a movable one would be remembered) nor said it runs.
      expect(ports().BILLING_SIM_PORT).toBeUndefined();
      expect(log()).not.toContain("SIMULATOR");
      expect(log().split("\n").filter((l) => l.includes("self-hosted: one unlimited plan; the local region may reach private addresses"))).toHaveLength(1);

      // Once its owner exists, a stranger who reaches it cannot make an account (and so checks of the private network).
      expect(log()).toContain("sign-up closed: people join by invitation (SIGNUP_OPEN=true opens it)");
      const stranger = await fetch(`${base}/api/v1/auth/signup`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "stranger@example.test", password: "a long password", name: "Stranger" }),
      });
      expect(stranger.status).toBe(403);
      expect(((await stranger.json()) as { details: { reason: string } }).details.reason).toBe("signup_closed");
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  }, 120_000);

  it("runs the billing simulator as before with BILLING=simulator, and refuses private targets", async () => {
    const { proc, log } = await start({ BILLING: "simulator" });
    try {
      const call = await signUp("hosted@example.test");
      const sub = await call("GET", "/api/v1/billing/subscription");
      expect(sub.body).toMatchObject({ billing_enabled: true, plan: { id: "free" } });
      const simPort = ports().BILLING_SIM_PORT;
      expect(simPort).toBeGreaterThan(0);
      expect((await fetch(`http://127.0.0.1:${simPort}/sim/state`)).status).toBe(200);
      expect(log()).toContain("SIMULATOR");
      expect(log()).not.toContain("self-hosted: one unlimited plan");
      // The hosted setup is a cloud region: a loopback target is refused.
      const created = await call("POST", "/api/v1/monitors", { name: "NAS", type: "http", config: { url: `http://127.0.0.1:${target.port}/` } });
      expect(created.status).toBe(201);
      await call("POST", `/api/v1/monitors/${created.body.id}/run`);
      let status = "pending";
      for (const deadline = Date.now() + 30_000; status === "pending" && Date.now() < deadline; await Bun.sleep(300)) status = (await call("GET", `/api/v1/monitors/${created.body.id}`)).body.status;
      expect(status).toBe("down");
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  }, 120_000);

  it("keeps an explicit ALLOW_PRIVATE_IPS=false and IPV6_EGRESS=false, and says so in its start line", async () => {
    // Sign-up opened: the installation's owner exists from the first test.
    const { proc, log } = await start({ ALLOW_PRIVATE_IPS: "false", IPV6_EGRESS: "false", SIGNUP_OPEN: "true" });
    try {
      const call = await signUp("careful@example.test");
      expect((await call("GET", "/api/v1/billing/subscription")).body).toMatchObject({ billing_enabled: false, plan: { id: "unlimited" } });
      expect(log()).toContain("self-hosted: one unlimited plan; private addresses refused (ALLOW_PRIVATE_IPS=false); IPv6 targets refused (IPV6_EGRESS=false)");
      expect(log()).not.toContain("the local region may reach private addresses");
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  }, 120_000);

  it("bills through the payment provider, without the simulator, when its key is set", async () => {
    rmSync(join(dataDir, "ports.json"), { force: true });
    const { proc, log } = await start({ PADDLE_API_KEY: "pdl_test_key", PADDLE_WEBHOOK_SECRETS: "whsec_test", PADDLE_API_URL: "http://127.0.0.1:9", RATE_LIMIT_SIGNUP_PER_IP: "100" });
    try {
      const call = await signUp("paying@example.test");
      expect((await call("GET", "/api/v1/billing/subscription")).body).toMatchObject({ billing_enabled: true, plan: { id: "free" } });
      expect(ports().BILLING_SIM_PORT).toBeUndefined();
      expect(log()).not.toContain("SIMULATOR");
      expect(log()).not.toContain("self-hosted:");
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  }, 120_000);
});
