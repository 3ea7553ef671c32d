import { defineCheck } from "../shared/define-check.ts";
import { HTTP_DATA_FIELDS, judgeHttpResponse, requestForCheck } from "./http-probe.ts";
import { httpConfigSchema } from "./http-schema.ts";

export const httpCheck = defineCheck({
  type: "http",
  configSchema: httpConfigSchema,
  dataFields: HTTP_DATA_FIELDS,
  reportsResponseTime: true,
  async probe(config, ctx) {
    const started = performance.now();
    const res = await requestForCheck(config, ctx, false);
    return judgeHttpResponse(config, res, performance.now() - started);
  },
});
