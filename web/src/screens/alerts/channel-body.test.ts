import { describe, expect, it } from "bun:test";
import { channelTypes } from "../../../../schemas/channel-types.ts";
import { validateChannelConfig } from "../../../../alerting/service/channel-config.ts";
import { FormIssuesError } from "../../lib/form-issues";
import { CHANNEL_TYPES, channelFields, readChannelForm } from "./channel-body";

const form = (entries: Record<string, string>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(entries)) f.append(k, v);
  return f;
};
const issuesOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof FormIssuesError) return err.issues;
    throw err;
  }
  return {};
};

describe("readChannelForm", () => {
  it("offers every channel type the API registers", () => {
    expect([...CHANNEL_TYPES].sort()).toEqual([...channelTypes].sort());
    for (const t of CHANNEL_TYPES) expect(channelFields(t).some((f) => f.required)).toBe(true);
  });

  it("builds an email channel the API accepts from a list of addresses", () => {
    const body = readChannelForm("email", form({ name: "On call", "config.to": "a@example.com, b@example.com" }));
    expect(body).toEqual({ name: "On call", type: "email", config: { to: ["a@example.com", "b@example.com"] } });
    expect(validateChannelConfig("email", body.config)).toEqual([]);
  });

  it("refuses a webhook secret that is too short, as the API does", () => {
    expect(issuesOf(() => readChannelForm("webhook", form({ name: "Hook", "config.url": "https://example.com/h", "config.secret": "short" })))).toEqual({
      "body.config.secret": "must be at least 16 characters",
    });
    expect(validateChannelConfig("webhook", { url: "https://example.com/h", secret: "short" }).map((i) => i.path)).toEqual(["/secret"]);
  });

  it("leaves masked secrets to the server, which keeps the stored value", () => {
    expect(readChannelForm("slack", form({ name: "Ops", "config.url": "••••1234" })).config).toEqual({ url: "••••1234" });
    expect(readChannelForm("webhook", form({ name: "H", "config.url": "https://e.test/x", "config.headers": "Authorization: ••••abcd" })).config.headers).toEqual({ Authorization: "••••abcd" });
    // A webhook's URL is masked too (it may carry the receiver's token).
    expect(readChannelForm("webhook", form({ name: "H", "config.url": "••••ok/x" })).config.url).toBe("••••ok/x");
  });
});
