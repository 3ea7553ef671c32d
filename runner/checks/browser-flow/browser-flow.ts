import { browserErrorText, defineBrowserCheck } from "../browser/define-browser-check.ts";
import { assertFromTarget, navigationError } from "../browser/navigation.ts";
import { ms } from "../shared/timing.ts";
import type { CheckDataRecord } from "../types.ts";
import { browserFlowDataSchema } from "./browser-flow-schema.ts";
import { type BrowserFlowStep, browserFlowConfigSchema, DEFAULT_STEP_TIMEOUT_MS } from "./browser-flow-schema.ts";
import { type FlowState, flowActions } from "./flow-actions.ts";

const label = (step: BrowserFlowStep, index: number) => `step ${index} (${step.name ? `${step.action} "${step.name}"` : step.action})`;

/** A deadline reached inside a step: the check's timeout, not the step's failure. */
function checkTimeout(message: string): Error {
  const err = new Error(message);
  err.name = "TimeoutError";
  return err;
}

/**
 * Browser Flow: open `url`, then run the declarative steps in order with their own timeouts.
 * The first step that fails ends the flow (down, or timeout when the check's deadline ran out
 * during it); each step's outcome and duration is recorded, later steps as skipped.
 */
export const browserFlowCheck = defineBrowserCheck({
  type: "browser_flow",
  configSchema: browserFlowConfigSchema,
  dataSchema: browserFlowDataSchema,
  async probe(config, ctx) {
    const outcomes: CheckDataRecord[] = config.steps.map((step, i) => ({
      index: i + 1,
      action: step.action,
      name: step.name ?? null,
      status: "skipped",
      duration_ms: null,
      error: null,
      detail: null,
    }));
    const data = ctx.data;
    data.steps = outcomes;
    data.steps_total = config.steps.length;
    data.steps_passed = 0;

    ctx.setActivity("opening url");
    let response;
    try {
      response = await ctx.page.goto(config.url, { waitUntil: "load", timeout: ctx.remaining() });
    } catch (err) {
      throw navigationError(err, config.url, ctx.guard);
    }
    assertFromTarget(response, config.url, ctx.guard);

    const state: FlowState = { probe: ctx, vars: new Map(), headers: { ...config.headers }, startUrl: config.url, index: 0, timeoutMs: 0 };
    for (const [i, step] of config.steps.entries()) {
      const index = i + 1;
      const outcome = outcomes[i]!;
      state.index = index;
      state.timeoutMs = Math.max(1, Math.min(step.timeout_ms ?? DEFAULT_STEP_TIMEOUT_MS, Math.floor(ctx.remaining())));
      ctx.setActivity(label(step, index));
      // Until the step settles it stands as the failing one, so a check timeout names it.
      Object.assign(outcome, { status: "failed", error: "did not finish before the check's timeout" });
      data.failed_step = index;
      data.failed_step_action = step.action;
      data.failed_step_name = step.name ?? null;
      const started = performance.now();
      try {
        const run = flowActions[step.action] as (s: BrowserFlowStep, st: FlowState) => Promise<string | null>;
        const detail = await run(step, state);
        Object.assign(outcome, { status: "passed", duration_ms: ms(performance.now() - started), error: null, detail });
        data.steps_passed = index;
        data.failed_step = null;
        data.failed_step_action = null;
        data.failed_step_name = null;
      } catch (err) {
        const text = err instanceof Error && err.name === "TimeoutError" ? `no success within ${state.timeoutMs} ms: ${browserErrorText(err)}` : browserErrorText(err);
        Object.assign(outcome, { duration_ms: ms(performance.now() - started), error: text });
        if (ctx.remaining() < 50) throw checkTimeout(`${label(step, index)}: ${text}`);
        return { status: "down", error: `${label(step, index)} failed: ${text}` };
      }
    }
    return { status: "up" };
  },
});
