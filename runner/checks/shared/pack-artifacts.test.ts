import { afterAll, describe, expect, it } from "bun:test";
import { connectNatsBus } from "../../../core/bus/index.ts";
import type { CheckResultMessage } from "../../../schemas/messages/check-messages.ts";
import { dropNatsStreams, NATS_URL, natsPrefix, until } from "../../../tests/support/scheduling.ts";
import { packArtifacts, RESULT_ARTIFACT_BUDGET } from "./pack-artifacts.ts";

const prefix = natsPrefix("pack");
afterAll(() => dropNatsStreams([prefix]), 30_000);

const file = (name: string, size: number) => ({ name, content_type: "image/jpeg" as const, data: crypto.getRandomValues(new Uint8Array(size)) });

describe("packArtifacts", () => {
  it("keeps the files that fit the budget, in order, as base64", () => {
    const packed = packArtifacts([file("big", 300 * 1024), file("second", 300 * 1024), file("small", 10)]);
    expect(packed.map((a) => a.name)).toEqual(["big", "small"]);
    expect(Buffer.from(packed[1]!.data_base64, "base64").length).toBe(10);
  });

  it("a result with a full screenshot budget publishes on NATS", async () => {
    const bus = await connectNatsBus({ url: NATS_URL, prefix });
    try {
      await bus.ensureTopology({ resultDurables: [{ name: "pack" }] });
      const artifacts = packArtifacts([file("failure", RESULT_ARTIFACT_BUDGET)]);
      expect(artifacts).toHaveLength(1);
      const due = Date.now();
      const message: CheckResultMessage = {
        id: `mon_pack.r.${due}`,
        org_id: "org_pack",
        monitor_id: "mon_pack",
        location: "r",
        location_type: "region",
        scheduled_at: due,
        checked_at: due,
        status: "down",
        duration_ms: 1,
        error: "x".repeat(1000),
        data: { screenshots: ["failure"] },
        artifacts,
      };
      await bus.publishResult("results.org_pack.mon_pack", message);
      const got: CheckResultMessage[] = [];
      const consumer = await bus.consumeResults<CheckResultMessage>("pack", { maxWaitMs: 10 }, (batch) => void got.push(...batch.map((d) => d.data)));
      await until(() => got.length === 1, 5000, "the result back");
      await consumer.stop();
      expect(got[0]!.artifacts![0]!.data_base64).toBe(artifacts[0]!.data_base64);
    } finally {
      await bus.close();
    }
  });
});
