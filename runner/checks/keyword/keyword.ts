import { judgeHttpResponse, requestForCheck } from "../http/http-probe.ts";
import { defineCheck } from "../shared/define-check.ts";
import { KEYWORD_DEFAULTS, keywordSpec } from "./keyword-schema.ts";

export const keywordCheck = defineCheck(keywordSpec, {
  async probe(config, ctx) {
    const started = performance.now();
    const res = await requestForCheck(config, ctx, true);
    const text = res.body?.toString("utf8") ?? "";
    const caseSensitive = config.case_sensitive ?? KEYWORD_DEFAULTS.case_sensitive;
    const found = caseSensitive ? text.includes(config.keyword) : text.toLowerCase().includes(config.keyword.toLowerCase());
    ctx.data.keyword_found = found;
    // Which keyword was looked for, so an alert rule about another keyword does not read this answer as its own.
    ctx.data.keyword = config.keyword;
    ctx.data.keyword_case_sensitive = caseSensitive;

    const http = judgeHttpResponse(config, res, performance.now() - started, ctx.data);
    if (http.status === "down") return http;
    const mode = config.mode ?? KEYWORD_DEFAULTS.mode;
    if (mode === "present" && !found) return { status: "down", error: `keyword "${config.keyword}" not found in the response body` };
    if (mode === "absent" && found) return { status: "down", error: `keyword "${config.keyword}" found in the response body` };
    return http;
  },
});
