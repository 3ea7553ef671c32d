import { describe, expect, it } from "bun:test";
import { AppError } from "../../core/errors.ts";
import type { CheckType } from "../../schemas/check-types.ts";
import { validateCheckConfig } from "./validate-config.ts";

/** The issues a refused config answers with. */
function issues(type: CheckType, config: unknown): Array<{ path: string; message: string }> {
  try {
    validateCheckConfig(type, config);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    expect(e.status).toBe(400);
    return (e.details as { issues: Array<{ path: string; message: string }> }).issues;
  }
  throw new Error("the config was accepted");
}

describe("validateCheckConfig", () => {
  it("says what form a patterned field takes, once, never the regular expression", () => {
    const cases: Array<[CheckType, unknown, string]> = [
      ["http", { url: "ftp://x" }, "body.config.url"],
      ["tcp", { host: "bad host!", port: 80 }, "body.config.host"],
      ["ssl", { host: "" }, "body.config.host"],
      ["dns", { name: "bad name!", record_type: "A" }, "body.config.name"],
      ["dns", { name: "example.com", record_type: "A", resolver: "my resolver" }, "body.config.resolver"],
      ["domain", { domain: "not a domain" }, "body.config.domain"],
      ["http", { url: "http://a.test/", expected_status: ["2x"] }, "body.config.expected_status.0"],
    ];
    for (const [type, config, path] of cases) {
      const found = issues(type, config);
      expect(found.map((i) => i.path)).toEqual([path]);
      expect(found[0]!.message).toStartWith("Expected ");
      expect(found[0]!.message).not.toContain("match '");
      expect(found[0]!.message).not.toContain("^");
    }
    expect(issues("domain", { domain: "not a domain" })[0]!.message).toBe("Expected registrable domain, e.g. example.com or example.co.uk");
    expect(issues("http", { url: "ftp://x" })[0]!.message).toBe("Expected http:// or https:// URL");
  });

  it("still says how long a patterned field may be", () => {
    const found = issues("tcp", { host: `${"a".repeat(254)}`, port: 80 });
    expect(found).toEqual([{ path: "body.config.host", message: "Expected string length less or equal to 253" }]);
  });

  it("refuses a check of the body on a HEAD request, which has none", () => {
    expect(issues("keyword", { url: "http://a.test/", method: "HEAD", keyword: "welcome" })).toEqual([
      { path: "body.config.method", message: "a keyword check reads the body and a HEAD response has none: use GET (or another method)" },
    ]);
    const assertions = [
      { source: "status_code", operator: "equals", target: 200 },
      { source: "json", property: "$.status", operator: "equals", target: "ok" },
    ];
    expect(issues("http", { url: "http://a.test/", method: "HEAD", assertions })).toEqual([
      { path: "body.config.assertions.1.source", message: "a HEAD response has no body to check: use GET (or another method)" },
    ]);
    expect(validateCheckConfig("http", { url: "http://a.test/", method: "HEAD", assertions: [assertions[0]] }).method).toBe("HEAD");
  });

  it("refuses a DNS resolver that is no IP address or whose port is out of range, and takes every form the check reads", () => {
    const resolverIssue = (resolver: string) => issues("dns", { name: "example.com", record_type: "A", resolver });
    for (const bad of ["999.1.1.1", "1..2.3", "1.2.3.4.5", "127.0.0.1:0", "127.0.0.1:99999", "[::1]:70000", "::1::2", "12345::1"]) {
      const found = resolverIssue(bad);
      expect(found.map((i) => i.path)).toEqual(["body.config.resolver"]);
    }
    expect(resolverIssue("127.0.0.1:99999")[0]!.message).toBe('port 99999 is out of range (1-65535) in "127.0.0.1:99999"');
    expect(resolverIssue("999.1.1.1")[0]!.message).toBe('"999.1.1.1" is not an IP address: give the DNS server as "ip", "ip:port" or "[ipv6]:port"');
    for (const good of ["127.0.0.1", "127.0.0.1:5353", "127.1", "::1", "[::1]:53", "2001:db8::53", "[2001:db8:0:0:0:0:0:53]:5353", "fe80::1"]) {
      expect(validateCheckConfig("dns", { name: "example.com", record_type: "A", resolver: good }).resolver).toBe(good);
    }
  });

  it("says what is wrong with a flow step, not only that it matches no step type", () => {
    const url = "http://a.test/";
    expect(issues("browser_flow", { url, steps: [{ action: "navigate", url: "/" }, { action: "click" }] })).toEqual([
      { path: "body.config.steps.1.selector", message: "Property 'selector' is missing" },
    ]);
    const unknown = issues("browser_flow", { url, steps: [{ action: "teleport", selector: "a" }] });
    expect(unknown.map((i) => i.path)).toEqual(["body.config.steps.0.action"]);
    expect(unknown[0]!.message).toStartWith("Expected one of: navigate, click, fill");
    expect(issues("browser_flow", { url, steps: [{ action: "click", selector: "a", button: "thumb" }] })).toEqual([
      { path: "body.config.steps.0.button", message: "Expected one of: left, right, middle" },
    ]);
  });
});
