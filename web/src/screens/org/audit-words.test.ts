import { describe, expect, it } from "bun:test";
import { actorOf, auditSentence, nounOf } from "./audit-words";

const entry = (action: string, target_type: string, details: Record<string, unknown> = {}, target_id: string | null = "mon_0123456789abcdef") => ({
  actor: "user:alice@example.com",
  action,
  target_type,
  target_id,
  details,
});

describe("audit entries in words", () => {
  it("names the actor, the verb, the kind of target and its name", () => {
    expect(auditSentence(entry("monitors.create", "monitors", { name: "Shop API" }))).toBe("alice@example.com created monitor Shop API");
  });
  it("falls back to a shortened id when the entry carries no name", () => {
    expect(auditSentence(entry("monitors.delete", "monitors"))).toBe("alice@example.com deleted monitor mon_01234567…");
  });
  it("names the sub-resource of a nested write", () => {
    expect(auditSentence(entry("status_pages.subscribers.delete", "status_pages", {}, "sub_1"))).toBe("alice@example.com deleted subscriber on status page sub_1");
  });
  it("reads actions that are not create/update/delete", () => {
    expect(auditSentence(entry("monitors.pause", "monitors", { name: "Web" }))).toBe("alice@example.com paused monitor Web");
    expect(auditSentence({ ...entry("api_keys.create", "api_keys", { name: "CI" }), actor: "api_key:key_1" })).toBe("API key key_1 created API key CI");
    expect(auditSentence(entry("monitors.rotate_token", "monitors", {}, null))).toBe("alice@example.com did “rotate token” on monitor");
  });
  it("singularises plural resource names", () => {
    expect(nounOf("escalation_policies")).toBe("escalation policy");
    expect(nounOf("alert_channels")).toBe("alert channel");
    expect(actorOf("system")).toBe("system");
  });
});
