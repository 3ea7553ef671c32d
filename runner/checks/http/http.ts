import { defineCheck } from "../shared/define-check.ts";
import { needsBody } from "./assertions.ts";
import { judgeHttpResponse, requestForCheck } from "./http-probe.ts";
import { httpSpec } from "./http-schema.ts";

export const httpCheck = defineCheck(httpSpec, {
  async probe(config, ctx) {
    const started = performance.now();
    const res = await requestForCheck(config, ctx, needsBody(config.assertions));
    return judgeHttpResponse(config, res, performance.now() - started, ctx.data);
  },
});
