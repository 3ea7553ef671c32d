import { describe, expect, it } from "bun:test";
import { ConfigError } from "../../core/config/parse-env.ts";
import { loadWorkerConfig } from "./config.ts";

describe("worker configuration", () => {
  it("takes the region from --region, which wins over REGION, with the documented defaults", () => {
    const c = loadWorkerConfig({ REGION: "eu-west" }, ["--region", "us-east"]);
    expect(c).toMatchObject({ REGION: "us-east", CONCURRENCY: 200, ALLOW_PRIVATE_IPS: false, JOB_ACK_WAIT_MS: 30_000, HEARTBEAT_INTERVAL_MS: 5000 });
    expect(loadWorkerConfig({}, ["--region=ap-south"]).REGION).toBe("ap-south");
    expect(loadWorkerConfig({ REGION: "local", ALLOW_PRIVATE_IPS: "yes" }).ALLOW_PRIVATE_IPS).toBe(true);
  });

  it("refuses a missing region or a bad value, naming the variable", () => {
    expect(() => loadWorkerConfig({})).toThrow(/REGION/);
    expect(() => loadWorkerConfig({}, ["--region"])).toThrow(ConfigError);
    expect(() => loadWorkerConfig({ REGION: "EU West" })).toThrow(/REGION/);
    expect(() => loadWorkerConfig({ REGION: "eu", CONCURRENCY: "0" })).toThrow(/CONCURRENCY/);
    expect(() => loadWorkerConfig({ REGION: "eu", JOB_ACK_WAIT_MS: "fast" })).toThrow(/JOB_ACK_WAIT_MS/);
  });
});
