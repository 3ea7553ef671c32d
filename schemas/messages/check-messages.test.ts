import { describe, expect, it } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { CheckResultMessageSchema, resultMessage, unavailableResult, type JobIdentity } from "./check-messages.ts";

const valid = TypeCompiler.Compile(CheckResultMessageSchema);
const job: JobIdentity = { id: "mon_1.eu.1000", org_id: "org_1", monitor_id: "mon_1", location: "eu", location_type: "region", due_at: 1000 };

describe("resultMessage", () => {
  it("builds a message that validates, taking identity from the job and leaving out empty artifacts", () => {
    const m = resultMessage(job, { checked_at: 1005, status: "up", duration_ms: 12, data: { status_code: 200, screenshots: null }, artifacts: [] });
    expect(valid.Check(m)).toBe(true);
    expect(m).toEqual({ id: job.id, org_id: "org_1", monitor_id: "mon_1", location: "eu", location_type: "region", scheduled_at: 1000, checked_at: 1005, status: "up", duration_ms: 12, error: null, data: { status_code: 200, screenshots: null } });
  });

  it("carries packed artifacts when there are some", () => {
    const m = resultMessage(job, { checked_at: 1005, status: "down", duration_ms: 3, error: "boom", data: {}, artifacts: [{ name: "failure", content_type: "image/jpeg", data_base64: "AA==" }] });
    expect(valid.Check(m)).toBe(true);
    expect(m.artifacts).toHaveLength(1);
  });

  it("records a job that could not run as unavailable, a gap and not downtime", () => {
    const m = unavailableResult(job, "no worker online in region eu", 2000);
    expect(valid.Check(m)).toBe(true);
    expect(m).toMatchObject({ status: "unavailable", duration_ms: 0, error: "no worker online in region eu", data: {}, scheduled_at: 1000, checked_at: 2000 });
  });
});
