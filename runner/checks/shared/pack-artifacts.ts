import type { RunnerArtifact } from "../../../schemas/runner-protocol.ts";
import type { CheckArtifact } from "../types.ts";

/**
 * Raw bytes of files one result may carry. Base64 makes them about 560 KiB: under the API's 1 MiB body
 * limit (runner, with the sealed session) and NATS's default 1 MiB max_payload (cloud worker → ingest).
 */
export const RESULT_ARTIFACT_BUDGET = 420 * 1024;

/** The files that fit the budget, in order, as the runner protocol and the result message (PackedArtifact) carry them. */
export function packArtifacts(files: CheckArtifact[], budget = RESULT_ARTIFACT_BUDGET): RunnerArtifact[] {
  const out: RunnerArtifact[] = [];
  let used = 0;
  for (const f of files) {
    if (used + f.data.length > budget) continue;
    used += f.data.length;
    out.push({ name: f.name, content_type: f.content_type, data_base64: Buffer.from(f.data).toString("base64") });
  }
  return out;
}
