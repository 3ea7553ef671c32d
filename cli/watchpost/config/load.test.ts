import { describe, expect, it } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, validateConfig } from "./load.ts";

const file = (text: string, name = "watchpost.yaml") => {
  const path = join(mkdtempSync(join(tmpdir(), "wp-load-")), name);
  writeFileSync(path, text);
  return path;
};

describe("loadConfig", () => {
  it("takes YAML merge keys, the usual way to share settings between entries", async () => {
    const state = await loadConfig(
      file(`version: 1
monitors:
  - &web
    key: shop
    name: Shop
    type: http
    config: { url: "https://shop.example" }
    interval_seconds: 60
  - <<: *web
    key: blog
    name: Blog
    config: { url: "https://blog.example" }
`),
    );
    expect(state.monitors.map((m) => [m.key, m.interval_seconds, (m.config as { url: string }).url])).toEqual([
      ["shop", 60, "https://shop.example"],
      ["blog", 60, "https://blog.example"],
    ]);
  });
});

/** The message loadConfig refuses the file with. */
const refusal = async (path: string) => {
  const err = await loadConfig(path).then(
    () => null,
    (e: Error) => e,
  );
  if (!err) throw new Error(`${path} was accepted`);
  return err.message;
};

describe("loadConfig: a file it cannot read", () => {
  it("names the file, line and column of a JSON syntax error, in the parser's words, as for YAML", async () => {
    const trailing = file('{\n  "version": 1,\n  "monitors": [],\n}\n', "watchpost.json");
    expect(await refusal(trailing)).toBe(`${trailing}: JSON Parse error: Property name must be a string literal at line 4, column 1:\n\n  "monitors": [],\n}\n^\n`);
    const unquoted = file("{ monitors: [] }\n", "watchpost.json");
    expect(await refusal(unquoted)).toStartWith(`${unquoted}: JSON Parse error: `);
    expect(await refusal(unquoted)).toEndWith(" at line 1, column 3:\n\n{ monitors: [] }\n  ^\n");
    const yaml = file("version: 1\nmonitors: [\n");
    expect(await refusal(yaml)).toContain(" at line 3, column 1:\n\n");
  });

  it("says a YAML file must hold one document, naming the line where the second starts", async () => {
    const two = file("---\nversion: 1\nmonitors: []\n---\nversion: 1\nmonitors: []\n");
    expect(await refusal(two)).toBe(`${two}: the file must hold one YAML document; a second one starts at line 4, column 1:\n\nmonitors: []\n---\n^\n`);
    const trailing = file("version: 1\nmonitors: []\n---\n");
    expect(await refusal(trailing)).toBe(`${trailing}: the file must hold one YAML document; a second one starts at line 3, column 1:\n\nmonitors: []\n---\n^^^\n`);
    expect(await loadConfig(file("# watchpost\n---\nversion: 1\nmonitors: []\n...\n"))).toEqual({ version: 1, monitors: [] });
  });
});

describe("validateConfig", () => {
  it("names a shell-style reference, which would be sent as written", async () => {
    const issues = validateConfig({ version: 1, monitors: [{ key: "shop", name: "Shop", type: "http", config: { url: "https://shop.example", headers: { Authorization: "Bearer ${API_TOKEN:-dev}" } } }] });
    expect(issues).toEqual([{ path: "monitors[0].config.headers.Authorization", message: "${API_TOKEN:-dev} is not replaced: only ${NAME} is (set the variable, or write the value)" }]);
    expect(validateConfig({ version: 1, monitors: [{ key: "shop", name: "Shop", type: "http", config: { url: "https://shop.example", headers: { Authorization: "Bearer ${API_TOKEN}" } } }] })).toEqual([]);
  });
});

describe("validate: what the API would refuse beyond the schema", () => {
  const monitor = (extra: Record<string, unknown>) => ({ key: "m", name: "M", ...extra });
  const messages = (doc: Record<string, unknown>) => validateConfig({ version: 1, monitors: [], ...doc }).map((i) => `${i.path}: ${i.message}`);

  it("a heartbeat's timing: both or neither of period and schedule, a bad cron, an unknown zone", () => {
    expect(messages({ monitors: [monitor({ type: "heartbeat", config: { period_seconds: 300, schedule: "0 * * * *" } })] })).toEqual(["monitors[0].config: give either period_seconds or schedule (a cron expression), not both"]);
    expect(messages({ monitors: [monitor({ type: "heartbeat", config: {} })] })).toEqual(["monitors[0].config: give exactly one of period_seconds and schedule (a cron expression); neither is set"]);
    expect(messages({ monitors: [monitor({ type: "heartbeat", config: { schedule: "61 * * * *" } })] })[0]).toBe('monitors[0].config.schedule: has a minute out of range (0–59): "61"');
    expect(messages({ monitors: [monitor({ type: "heartbeat", config: { schedule: "0 3 * * *", timezone: "Mars/Olympus" } })] })).toEqual(['monitors[0].config.timezone: Unknown time zone "Mars/Olympus"; use an IANA name such as Europe/Berlin']);
    expect(messages({ monitors: [monitor({ type: "heartbeat", config: { schedule: "0 3 * * *", timezone: "Europe/Berlin" } })] })).toEqual([]);
  });

  it("a timeout longer than the interval (300 s when the file gives none)", () => {
    expect(messages({ monitors: [monitor({ type: "http", config: { url: "https://x.example" }, interval_seconds: 30, timeout_ms: 40_000 })] })).toEqual(["monitors[0].timeout_ms: must not exceed the interval (30000 ms)"]);
    expect(messages({ monitors: [monitor({ type: "http", config: { url: "https://x.example" }, timeout_ms: 60_000 })] })).toEqual([]);
  });

  it("a maintenance window's times and recurrence", () => {
    const w = (extra: Record<string, unknown>) => ({ key: "w", name: "W", ...extra });
    expect(messages({ maintenance: [w({ starts_at: "2026-12-01T02:00:00Z", ends_at: "2026-12-01T01:00:00Z" })] })).toEqual(["maintenance[0].ends_at: must be after starts_at"]);
    expect(messages({ maintenance: [w({ rrule: "FREQ=NOPE", duration_minutes: 60 })] })[0]).toStartWith("maintenance[0].rrule: ");
    expect(messages({ maintenance: [w({ cron: "0 2 * * 0" })] })).toEqual(["maintenance[0].duration_minutes: a recurring window needs duration_minutes"]);
    expect(messages({ maintenance: [w({ cron: "0 2 * * 0", duration_minutes: 60, timezone: "Europe/Berlin" })] })).toEqual([]);
    expect(messages({ maintenance: [w({ rrule: "FREQ=WEEKLY;BYDAY=SU", cron: "0 2 * * 0", duration_minutes: 60 })] })).toEqual(["maintenance[0].cron: give rrule or cron, not both"]);
  });
});
