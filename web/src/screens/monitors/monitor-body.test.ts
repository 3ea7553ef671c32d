import { describe, expect, it } from "bun:test";
import { CHECK_TYPES as API_CHECK_TYPES } from "../../../../schemas/check-types.ts";
import { assumeScheme, CHECK_TYPES, configFields, hostOf, monitorFieldLabels, readMonitorForm } from "./monitor-body";

const form = (entries: Record<string, string | string[]>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(entries)) for (const x of [v].flat()) f.append(k, x);
  return f;
};

describe("the address helpers", () => {
  it("assumes https for an address typed without a scheme and leaves other schemes alone", () => {
    expect(assumeScheme("example.com")).toBe("https://example.com");
    expect(assumeScheme(" shop.example.com/cart ")).toBe("https://shop.example.com/cart");
    expect(assumeScheme("http://example.com")).toBe("http://example.com");
    expect(assumeScheme("")).toBe("");
  });
  it("names a monitor after the host it watches", () => {
    expect(hostOf("https://shop.example.com/cart?x=1")).toBe("shop.example.com");
    expect(hostOf("example.com")).toBe("example.com");
    expect(hostOf("db.internal")).toBe("db.internal");
    expect(hostOf("not a url")).toBe("");
  });
  it("labels every config field by the API's issue path", () => {
    const labels = monitorFieldLabels("http");
    expect(labels["body.config.url"]).toBe("URL");
    expect(labels["body.name"]).toBe("Name");
    expect(Object.keys(labels).some((k) => k.startsWith("body.config.") && k.endsWith("expected_status"))).toBe(true);
  });
});

describe("readMonitorForm", () => {
  it("takes an address without a scheme as https and the host as the name when none is given", () => {
    const { body, issues } = readMonitorForm("http", form({ name: "", "config.url": "example.com/health", interval_seconds: "300" }), 30);
    expect(issues).toEqual([]);
    expect(body).toMatchObject({ name: "example.com", config: { url: "https://example.com/health" } });
    expect(readMonitorForm("tcp", form({ "config.host": "db.internal", "config.port": "5432" }), 30).body.name).toBe("db.internal");
  });

  it("keeps an address's port in the name it offers, so two services of one host get two names", () => {
    expect(readMonitorForm("http", form({ name: "", "config.url": "http://127.0.0.1:3918/health" }), 30).body.name).toBe("127.0.0.1:3918");
    expect(readMonitorForm("http", form({ name: "", "config.url": "http://127.0.0.1:3919/" }), 30).body.name).toBe("127.0.0.1:3919");
    expect(readMonitorForm("http", form({ name: "", "config.url": "https://example.com:443/" }), 30).body.name).toBe("example.com");
  });

  it("offers every check type the API knows, each with its schema's fields", () => {
    expect([...CHECK_TYPES].sort()).toEqual([...API_CHECK_TYPES].sort());
    for (const t of CHECK_TYPES) expect(configFields(t).length).toBeGreaterThan(0);
  });

  it("builds the API body of a TCP monitor and sends only the lists the form showed", () => {
    const { body, issues } = readMonitorForm("tcp", form({ name: " DB ", "config.host": "db.internal", "config.port": "5432", interval_seconds: "60", timeout_ms: "5000", tags: "prod, db, prod" }), 30);
    expect(issues).toEqual([]);
    expect(body).toEqual({ name: "DB", type: "tcp", config: { host: "db.internal", port: 5432 }, interval_seconds: 60, timeout_ms: 5000, tags: ["prod", "db"] });
    const shown = readMonitorForm("tcp", form({ name: "x", "config.host": "h", "config.port": "1", interval_seconds: "60", has_regions: "1", regions: ["eu", "us"], has_runners: "1" }), 30).body;
    expect(shown.regions).toEqual(["eu", "us"]);
    expect(shown.runner_ids).toEqual([]);
  });

  it("keeps the CLI's key tag of a project, which may exceed 64 characters; any other tag may not", () => {
    const keyTag = `wp-key:${"p".repeat(24)}/k${"x".repeat(56)}`;
    const base = { name: "x", "config.host": "h", "config.port": "1", interval_seconds: "60" };
    const kept = readMonitorForm("tcp", form({ ...base, tags: `prod, ${keyTag}` }), 30);
    expect(kept.issues).toEqual([]);
    expect(kept.body.tags).toEqual(["prod", keyTag]);
    expect(readMonitorForm("tcp", form({ ...base, tags: "x".repeat(65) }), 30).issues.map((i) => i.path)).toEqual(["body.tags"]);
  });

  it("refuses what the API would refuse, on the API's paths", () => {
    const { issues } = readMonitorForm("http", form({ name: "", "config.url": "not a url", interval_seconds: "20", timeout_ms: "30000" }), 30);
    expect(issues.map((i) => i.path).sort()).toEqual(["body.config.url", "body.interval_seconds", "body.name", "body.timeout_ms"]);
    const late = readMonitorForm("http", form({ name: "a", "config.url": "https://example.com/", interval_seconds: "60", timeout_ms: "90000" }), 30).issues;
    expect(late).toEqual([{ path: "body.timeout_ms", message: "must not exceed the interval" }]);
  });

  it("sends redacted secrets back unchanged, so the API keeps the stored values", () => {
    const { body, issues } = readMonitorForm(
      "http",
      form({
        name: "Api",
        "config.url": "https://example.com/",
        "config.headers": "Authorization: ••••••••\nX-Trace: on",
        "config.secret_headers": "X-Trace",
        "config.auth.type": "basic",
        "config.auth.username": "u",
        "config.auth.password": "••••••••",
        interval_seconds: "60",
      }),
      30,
    );
    expect(issues).toEqual([]);
    expect(body.config).toMatchObject({ headers: { Authorization: "••••••••", "X-Trace": "on" }, secret_headers: ["X-Trace"], auth: { type: "basic", username: "u", password: "••••••••" } });
  });

  it("sends no interval, timeout, regions or runners for an inbound heartbeat", () => {
    const { body, issues } = readMonitorForm("heartbeat", form({ name: "Backup job", "config.period_seconds": "3600", interval_seconds: "60", has_regions: "1" }), 30);
    expect(issues).toEqual([]);
    expect(body).toEqual({ name: "Backup job", type: "heartbeat", config: { period_seconds: 3600 }, tags: [] });
  });
});
