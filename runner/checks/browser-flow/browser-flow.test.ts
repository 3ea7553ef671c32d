import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { expectWellFormed } from "../contract.ts";
import type { BrowserPool } from "../browser/browser-pool.ts";
import { browserCtx, html, startPageServer, testPool } from "../browser/test-support.ts";
import { runCheck } from "../registry.ts";
import type { CheckDataRecord, CheckResult } from "../types.ts";
import { browserFlowCheck } from "./browser-flow.ts";
import { type BrowserFlowConfig, browserFlowConfigSchema, type BrowserFlowStep } from "./browser-flow-schema.ts";
import { matches } from "./flow-actions.ts";

// Real browsers on a machine shared with other work: generous per-test time.
setDefaultTimeout(60_000);

let pool: BrowserPool;
let site: ReturnType<typeof startPageServer>;
const seen: { headers: Record<string, string>; cookie: string | null; path: string }[] = [];

const LOGIN = `<title>Sign in</title>
  <form action="/login" method="post">
    <input id="email" name="email"><input id="password" name="password" type="password">
    <select id="region" name="region"><option value="eu">Europe</option><option value="us">United States</option></select>
    <button id="submit" type="submit">Sign in</button>
  </form>
  <input id="search" onkeydown="if (event.key === 'Enter') document.getElementById('searched').textContent = 'searched: ' + this.value">
  <p id="searched"></p>
  <button id="later" onclick="setTimeout(() => { const p = document.createElement('p'); p.id = 'late'; p.textContent = 'Loaded later'; document.body.append(p) }, 300)">Load</button>
  <div id="hidden-box" style="display:none">secret panel</div>`;

beforeAll(async () => {
  site = startPageServer({
    "/": (req) => {
      seen.push({ headers: Object.fromEntries(req.headers), cookie: req.headers.get("cookie"), path: "/" });
      return html(LOGIN);
    },
    "/login": async (req) => {
      const form = new URLSearchParams(await req.text());
      const ok = form.get("email") === "ada@example.com" && form.get("password") === "hunter2";
      return ok
        ? Response.redirect(`/orders/A-1042?region=${form.get("region")}`, 303)
        : html("<title>Sign in</title><p class='error'>Wrong password</p>", { status: 401 });
    },
    "/orders/A-1042": (req) => {
      seen.push({ headers: Object.fromEntries(req.headers), cookie: req.headers.get("cookie"), path: "/orders" });
      const region = new URL(req.url).searchParams.get("region");
      return html(`<title>Order A-1042 — Dashboard</title><h1>Order <span id="order">A-1042</span></h1><p>Region ${region}</p><a id="details" href="/details/A-1042">Details</a>`);
    },
    "/details/A-1042": (req) => {
      seen.push({ headers: Object.fromEntries(req.headers), cookie: req.headers.get("cookie"), path: "/details" });
      return html(`<title>Details</title><p>Details of A-1042</p><p id="width"></p><script>document.getElementById('width').textContent = 'width ' + innerWidth</script>`);
    },
    "/gone": () => html("<p>Gone</p>", { status: 410 }),
  });
  pool = await testPool();
});
afterAll(async () => {
  await pool?.close();
  site?.stop();
});

const flow = (steps: BrowserFlowStep[], extra: Partial<BrowserFlowConfig> = {}, o: Parameters<typeof browserCtx>[1] = {}): Promise<CheckResult> => {
  const config = Value.Default(browserFlowConfigSchema, { url: site.url("/"), steps, ...extra }) as BrowserFlowConfig;
  expect([...Value.Errors(browserFlowConfigSchema, config)].map((e) => `${e.path}: ${e.message}`)).toEqual([]);
  return browserFlowCheck.run(config, browserCtx(pool, o));
};
const stepsOf = (r: CheckResult) => r.data.steps as CheckDataRecord[];

describe("browser_flow check", () => {
  it("runs a passing flow using every step type, recording each step's outcome and duration", async () => {
    seen.length = 0;
    const r = await flow([
      { action: "set_viewport", width: 800, height: 600 },
      { action: "set_header", header: "X-Synthetic", value: "watchpost" },
      { action: "set_cookie", cookie: "consent", value: "yes" },
      { action: "navigate", url: "/", name: "Reload with header and cookie" },
      { action: "assert_status", expected: [200] },
      { action: "assert_title", title: "Sign in", match: "exact" },
      { action: "fill", selector: "#search", value: "shoes" },
      { action: "press", key: "Enter", selector: "#search" },
      { action: "assert_text", text: "searched: shoes", selector: "#searched", match: "exact" },
      { action: "click", selector: "#later" },
      { action: "wait_for_selector", selector: "#late" },
      { action: "wait_for_text", text: "Loaded later" },
      { action: "assert_visible", selector: "#hidden-box", visible: false },
      { action: "fill", selector: "#email", value: "ada@example.com" },
      { action: "fill", selector: "#password", value: "hunter2" },
      { action: "select", selector: "#region", value: "United States" },
      { action: "click", selector: 'role=button[name="Sign in"]' },
      { action: "wait_for_url", url: "**/orders/*", match: "glob" },
      { action: "assert_url", url: "region=us" },
      { action: "extract_text", selector: "#order", variable: "order_id" },
      { action: "extract_text", selector: "#details", attribute: "href", variable: "details_path" },
      { action: "assert_text", text: "Order {{order_id}}" },
      { action: "screenshot", screenshot_name: "order" },
      { action: "navigate", url: "{{details_path}}" },
      { action: "assert_text", text: "Details of {{order_id}}" },
      { action: "assert_text", text: "width 800" },
      { action: "assert_title", title: "Det*", match: "glob" },
      { action: "assert_visible", selector: "text=Details of A-1042" },
    ]);
    expectWellFormed(browserFlowCheck, r);
    expect(r.error).toBeUndefined();
    expect(r.status).toBe("up");
    const steps = stepsOf(r);
    expect(steps).toHaveLength(28);
    expect(steps.every((s) => s.status === "passed" && typeof s.duration_ms === "number" && s.error === null)).toBe(true);
    expect(steps[3]).toMatchObject({ index: 4, action: "navigate", name: "Reload with header and cookie", detail: "HTTP 200" });
    expect(steps[19]!.detail).toBe("order_id=A-1042");
    expect(steps[20]!.detail).toBe("details_path=/details/A-1042");
    expect(r.data).toMatchObject({ steps_total: 28, steps_passed: 28, failed_step: null, failed_step_action: null, title: "Details", http_status: 200, screenshots: ["order"] });
    expect(r.artifacts!.map((a) => a.name)).toEqual(["order"]);
    // set_header and set_cookie applied to the requests after them (the first load came before).
    const reload = seen.filter((s) => s.path === "/")[1]!;
    expect(reload.headers["x-synthetic"]).toBe("watchpost");
    expect(reload.cookie).toBe("consent=yes");
    expect(seen.find((s) => s.path === "/details")!.headers["x-synthetic"]).toBe("watchpost");
  });

  it("stops at a failing assertion: down, naming the step, later steps skipped, screenshot stored", async () => {
    const r = await flow([
      { action: "fill", selector: "#email", value: "ada@example.com" },
      { action: "fill", selector: "#password", value: "wrong" },
      { action: "click", selector: "#submit" },
      { action: "assert_text", text: "Order", name: "Dashboard shows the order", timeout_ms: 600 },
      { action: "screenshot" },
    ]);
    expectWellFormed(browserFlowCheck, r);
    expect(r.status).toBe("down");
    expect(r.error).toBe('step 4 (assert_text "Dashboard shows the order") failed: expected the page to contain "Order" (after 600 ms)');
    expect(r.data).toMatchObject({ failed_step: 4, failed_step_action: "assert_text", failed_step_name: "Dashboard shows the order", steps_passed: 3, steps_total: 5, http_status: 401 });
    const steps = stepsOf(r);
    expect(steps.map((s) => s.status)).toEqual(["passed", "passed", "passed", "failed", "skipped"]);
    expect(steps[3]!.error).toBe('expected the page to contain "Order" (after 600 ms)');
    expect(steps[3]!.duration_ms as number).toBeGreaterThanOrEqual(550);
    expect(steps[4]!.duration_ms).toBeNull();
    expect(r.data.screenshots).toEqual(["failure"]);
    expect(r.artifacts![0]!.data[0]).toBe(0xff);
  });

  it("fails a step whose element never appears within the step's timeout", async () => {
    const r = await flow([{ action: "click", selector: "#does-not-exist", timeout_ms: 300 }]);
    expect(r.status).toBe("down");
    expect(r.error).toStartWith("step 1 (click) failed: no success within 300 ms");
    expect(r.data.failed_step).toBe(1);
  });

  it("reports timeout, naming the running step, when the check's deadline ends inside a step", async () => {
    // The deadline leaves the browser time to open the page on a loaded machine (1.5 s once ended while "opening url"
    // in CI), and still ends inside the step, which waits a minute.
    const r = await flow([{ action: "wait_for_selector", selector: "#never", timeout_ms: 60_000 }], {}, { timeoutMs: 6000 });
    expectWellFormed(browserFlowCheck, r);
    expect(r.status).toBe("timeout");
    expect(r.error).toContain("step 1 (wait_for_selector)");
    expect(r.data.failed_step).toBe(1);
    expect(stepsOf(r)[0]!.status).toBe("failed");
    expect(r.data.screenshots).toEqual(["failure"]);
  });

  it("fails assert_status on an unexpected status, and on a variable no step has set", async () => {
    const gone = await flow([{ action: "navigate", url: "/gone" }, { action: "assert_status", expected: ["2xx"] }]);
    expect(gone.error).toBe("step 2 (assert_status) failed: the page answered HTTP 410, expected 2xx");
    const unknown = await flow([{ action: "assert_text", text: "{{missing}}" }]);
    expect(unknown.error).toBe("step 1 (assert_text) failed: unknown variable {{missing}}: no earlier extract_text step set it");
  });

  it("refuses a navigate step to a private address while private addresses are refused", async () => {
    const before = site.hits.get("/gone") ?? 0;
    const r = await flow([{ action: "navigate", url: site.url("/gone") }], { url: `http://shop.test:${site.port}/` }, { guard: { allowPrivate: false, ipv6: false, resolver: (await import("../browser/test-support.ts")).publicResolver }, standIns: ["shop.test"] });
    expect(r.status).toBe("down");
    expect(r.error).toContain("step 1 (navigate) failed: refused to contact 127.0.0.1");
    expect(site.hits.get("/gone") ?? 0).toBe(before);
  });

  it("leaves http_status null, not the previous page's 200, when a navigate step's target never answers", async () => {
    const closed = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const deadUrl = `http://127.0.0.1:${closed.port}/down`;
    closed.stop(true);
    const r = await flow([{ action: "assert_status", expected: [200] }, { action: "navigate", url: deadUrl }]);
    expectWellFormed(browserFlowCheck, r);
    expect(r.status).toBe("down");
    expect(r.data.failed_step).toBe(2);
    expect(r.data.http_status).toBeNull();
    expect(r.data.final_url).toBe(deadUrl);
  });

  it("accepts only declared steps: no script, no unknown action, no unknown field", async () => {
    const base = { url: site.url("/"), steps: [{ action: "click", selector: "#a" }] };
    expect(Value.Check(browserFlowConfigSchema, base)).toBe(true);
    for (const steps of [
      [{ action: "evaluate", script: "document.cookie" }],
      [{ action: "click", selector: "#a", script: "alert(1)" }],
      [{ action: "navigate", url: "javascript:alert(1)" }],
      [{ action: "fill", selector: "#a" }],
      [{ action: "extract_text", selector: "#a", variable: "1bad" }],
      [],
    ]) {
      expect(Value.Check(browserFlowConfigSchema, { ...base, steps })).toBe(false);
    }
    await expect(
      runCheck({ type: "browser_flow", config: { ...base, steps: [{ action: "evaluate", script: "1" }] }, timeoutMs: 5000, allowPrivate: true, ipv6: false }, { browsers: pool }),
    ).rejects.toThrow("invalid browser_flow config");
  });
});

describe("flow matching", () => {
  it("compares contains, exact and glob without running the pattern as a regular expression", () => {
    expect(matches("https://a.test/orders/1", "/orders/")).toBe(true);
    expect(matches("Dashboard", "Dashboard", "exact")).toBe(true);
    expect(matches("Dashboard!", "Dashboard", "exact")).toBe(false);
    expect(matches("https://a.test/orders/1", "**/orders/?", "glob")).toBe(true);
    expect(matches("a.b", "a?b", "glob")).toBe(true);
    expect(matches("axb", "a.b", "glob")).toBe(false);
    expect(matches("(x)", "(x)", "glob")).toBe(true);
  });
});
