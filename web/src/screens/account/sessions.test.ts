import { describe, expect, it } from "bun:test";
import { describeAgent } from "./sessions";

describe("describeAgent", () => {
  it("names the browser and the system", () => {
    expect(describeAgent("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/140.0.0.0 Safari/537.36")).toBe("Chrome on Linux");
    expect(describeAgent("Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15")).toBe("Safari on macOS");
    expect(describeAgent("Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0")).toBe("Firefox on Windows");
    expect(describeAgent("curl/8.5.0")).toBe("curl");
    expect(describeAgent(null)).toBe("Unknown device");
  });
});
