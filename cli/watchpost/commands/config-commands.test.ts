import { describe, expect, it } from "bun:test";
import { needsChannels } from "./config-commands.ts";

describe("the lists plan reads", () => {
  it("reads the organisation's channels for a file whose escalation policies name them, even without channels: or rules:", () => {
    expect(needsChannels({ escalation_policies: [{ key: "on-call", name: "On call", steps: [{ delay_minutes: 0, channels: ["ops-hook"] }] }] })).toBe(true);
    expect(needsChannels({ rules: [] })).toBe(true);
    expect(needsChannels({ channels: [] })).toBe(true);
    expect(needsChannels({})).toBe(false);
  });
});
