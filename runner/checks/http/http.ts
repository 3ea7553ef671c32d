import { defineCheck } from "../shared/define-check.ts";
import { httpDataSchema } from "./http-schema.ts";
import { judgeHttpResponse, requestForCheck } from "./http-probe.ts";
import { httpConfigSchema } from "./http-schema.ts";

export const httpCheck = defineCheck({
  type: "http",
  configSchema: httpConfigSchema,
  dataSchema: httpDataSchema,
  reportsResponseTime: true,
  async probe(config, ctx) {
    const started = performance.now();
    const res = await requestForCheck(config, ctx, false);
    return judgeHttpResponse(config, res, performance.now() - started);
  },
});
