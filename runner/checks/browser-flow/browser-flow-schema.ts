import { type Static, type TLiteral, type TObject, type TProperties, Type } from "@sinclair/typebox";
import { browserCommonFields } from "../../../schemas/checks/browser-fields.ts";
import { statusMatcherSchema } from "../http/http-schema.ts";
import { httpUrlSchema } from "../../../schemas/checks/schema-parts.ts";
import { secretHeadersSchema } from "../../../schemas/checks/secret-headers.ts";
import { browserDataFields } from "../../../schemas/checks/browser-data-fields.ts";
import { dataObject, intField, nullable, textField } from "../../../schemas/checks/data-fields.ts";
import { defineCheckSpec } from "../../../schemas/checks/check-spec.ts";

/**
 * The Flow step palette. Each step is a declarative object validated here; the worker maps it to
 * a fixed Playwright call (flow-actions.ts) and never runs JavaScript from the monitor's config.
 * GET /plugins/flow/components is generated from `flowStepSchemas`, the same list the validator
 * unions, so the palette and the validator cannot drift apart.
 */

export const DEFAULT_STEP_TIMEOUT_MS = 10_000;
const VARIABLE_PATTERN = "^[A-Za-z_][A-Za-z0-9_]{0,63}$";
const VARS = "; may contain {{variable}} placeholders filled by earlier extract_text steps";
/** On steps whose value may be a password or token: stored encrypted, shown as •••••••• by the API. */
const secretFlag = Type.Optional(
  Type.Boolean({ default: false, description: "Keep value secret: stored encrypted and shown as •••••••• (send •••••••• back to keep it); for passwords and tokens" }),
);

const selector = (what: string) =>
  Type.String({ minLength: 1, maxLength: 1024, description: `${what}: a CSS selector, or a Playwright selector such as text=Sign in or role=button[name="Buy"]${VARS}`, examples: ["#login"] });
const text = (what: string, example: string) => Type.String({ minLength: 1, maxLength: 2048, description: `${what}${VARS}`, examples: [example] });
const matchMode = (what: string) =>
  Type.Optional(
    Type.Union([Type.Literal("contains"), Type.Literal("exact"), Type.Literal("glob")], {
      default: "contains",
      description: `How ${what} is compared: contains (substring), exact, or glob (* any characters, ? one character)`,
    }),
  );
const waitUntil = Type.Optional(
  Type.Union([Type.Literal("load"), Type.Literal("domcontentloaded"), Type.Literal("networkidle")], { default: "load", description: "Page state that ends the navigation" }),
);
/** An absolute http(s) URL, or a path resolved against the current page. */
const urlOrPath = Type.String({
  minLength: 1,
  maxLength: 2048,
  pattern: "^([Hh][Tt][Tt][Pp][Ss]?://|/|\\{\\{)[^\\s]*$",
  description: `An http(s) URL, or a path starting with / resolved against the current page${VARS}`,
  examples: ["/login"],
});

/** Fields every step has. */
const commonFields = {
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Label of the step in results", examples: ["Open the login page"] })),
  timeout_ms: Type.Optional(
    Type.Integer({
      minimum: 100,
      maximum: 120_000,
      default: DEFAULT_STEP_TIMEOUT_MS,
      description: "Longest this step may take, ms; never longer than what is left of the check's timeout",
      examples: [5000],
    }),
  ),
};

function step<A extends string, P extends TProperties>(action: A, title: string, description: string, properties: P) {
  return Type.Object({ action: Type.Literal(action, { description: "The step type" }), ...properties, ...commonFields }, { additionalProperties: false, title, description });
}

/** Every step type, in palette order. Adding one here adds it to the validator, the palette and (via flow-actions.ts) the runner. */
export const flowStepSchemas = [
  step("navigate", "Navigate", "Open a URL in the page and wait for it to load", { url: urlOrPath, wait_until: waitUntil }),
  step("click", "Click", "Click an element (waits until it is visible, enabled and stable)", {
    selector: selector("Element to click"),
    button: Type.Optional(Type.Union([Type.Literal("left"), Type.Literal("right"), Type.Literal("middle")], { default: "left", description: "Mouse button" })),
    click_count: Type.Optional(Type.Integer({ minimum: 1, maximum: 3, default: 1, description: "1 for a click, 2 for a double click" })),
  }),
  step("fill", "Fill", "Type a value into an input, textarea or editable element, replacing its content", {
    selector: selector("Field to fill"),
    value: Type.String({ maxLength: 8192, description: `Text to enter${VARS}`, examples: ["user@example.com"] }),
    secret: secretFlag,
  }),
  step("select", "Select", "Choose an option of a <select> by its value or its label", {
    selector: selector("The <select> element"),
    value: text("Option value or label", "eu-west"),
  }),
  step("press", "Press", "Press a key or key combination, in an element or the page", {
    key: Type.String({ minLength: 1, maxLength: 50, pattern: "^[\\x21-\\x7E]+$", description: "Key name or combination, e.g. Enter, Tab, Control+A, ArrowDown", examples: ["Enter"] }),
    selector: Type.Optional(selector("Element to focus first; default: the focused element")),
  }),
  step("wait_for_selector", "Wait for element", "Wait until an element reaches a state", {
    selector: selector("Element to wait for"),
    state: Type.Optional(
      Type.Union([Type.Literal("visible"), Type.Literal("attached"), Type.Literal("hidden"), Type.Literal("detached")], { default: "visible", description: "State to wait for" }),
    ),
  }),
  step("wait_for_text", "Wait for text", "Wait until text appears in the page (or in an element)", {
    text: text("Text to wait for", "Welcome"),
    selector: Type.Optional(selector("Element whose text is searched; default: the whole page")),
  }),
  step("wait_for_url", "Wait for URL", "Wait until the page's URL matches", { url: text("URL or part of it", "/dashboard"), match: matchMode("the URL") }),
  step("assert_text", "Assert text", "Fail unless the page (or an element) contains, or exactly has, a text", {
    text: text("Expected text", "Order confirmed"),
    selector: Type.Optional(selector("Element whose text is checked; default: the whole page")),
    match: Type.Optional(
      Type.Union([Type.Literal("contains"), Type.Literal("exact"), Type.Literal("not_contains")], { default: "contains", description: "contains, exact (the element's whole text), or not_contains" }),
    ),
  }),
  step("assert_visible", "Assert visible", "Fail unless an element is visible (or, with visible: false, hidden or absent)", {
    selector: selector("Element to check"),
    visible: Type.Optional(Type.Boolean({ default: true, description: "false asserts the element is hidden or absent" })),
  }),
  step("assert_url", "Assert URL", "Fail unless the page's URL matches", { url: text("Expected URL or part of it", "/dashboard"), match: matchMode("the URL") }),
  step("assert_title", "Assert title", "Fail unless the page's title matches", { title: text("Expected title or part of it", "Dashboard"), match: matchMode("the title") }),
  step("assert_status", "Assert status", "Fail unless the last main-document response had an accepted HTTP status", {
    expected: Type.Array(statusMatcherSchema, { minItems: 1, maxItems: 20, description: "Accepted statuses: a code (200), a class (\"2xx\") or a range (\"200-299\")", examples: [[200]] }),
  }),
  step("extract_text", "Extract text", "Read an element's text (or attribute) into a variable that later steps use as {{variable}}", {
    selector: selector("Element to read"),
    variable: Type.String({ pattern: VARIABLE_PATTERN, description: "Variable name: letters, digits and _, not starting with a digit", examples: ["order_id"] }),
    attribute: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: "^[A-Za-z_:][A-Za-z0-9_.:-]*$", description: "Read this attribute instead of the text", examples: ["href"] })),
  }),
  step("screenshot", "Screenshot", "Store a screenshot of the page with the result", {
    screenshot_name: Type.Optional(Type.String({ pattern: "^[a-z0-9][a-z0-9_-]{0,39}$", description: "Name to retrieve it by; default step-<position>", examples: ["checkout"] })),
    full_page: Type.Optional(Type.Boolean({ default: false, description: "The whole scrollable page instead of the viewport" })),
  }),
  step("set_viewport", "Set viewport", "Resize the page", {
    width: Type.Integer({ minimum: 320, maximum: 3840, description: "Width in CSS pixels", examples: [390] }),
    height: Type.Integer({ minimum: 240, maximum: 2160, description: "Height in CSS pixels", examples: [844] }),
  }),
  step("set_header", "Set header", "Send a header with every later request of the flow", {
    header: Type.String({ minLength: 1, maxLength: 256, pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$", description: "Header name", examples: ["X-Test-Run"] }),
    value: Type.String({ maxLength: 8192, description: `Header value${VARS}`, examples: ["synthetic"] }),
    secret: secretFlag,
  }),
  step("set_cookie", "Set cookie", "Add a cookie to the browser context", {
    cookie: Type.String({ minLength: 1, maxLength: 256, pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$", description: "Cookie name", examples: ["session"] }),
    value: Type.String({ maxLength: 4096, description: `Cookie value${VARS}`, examples: ["abc123"] }),
    secret: secretFlag,
    domain: Type.Optional(Type.String({ minLength: 1, maxLength: 253, pattern: "^\\.?[A-Za-z0-9.-]+$", description: "Cookie domain; default: the host of the current page (or of url)", examples: ["example.com"] })),
    path: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, pattern: "^/", default: "/", description: "Cookie path" })),
    secure: Type.Optional(Type.Boolean({ default: false, description: "Send only over HTTPS" })),
    http_only: Type.Optional(Type.Boolean({ default: false, description: "Hidden from page scripts" })),
  }),
] as const;

export const browserFlowStepSchema = Type.Union([...flowStepSchemas], { description: "One step; `action` selects the step type (GET /plugins/flow/components lists them)" });
export type BrowserFlowStep = Static<typeof browserFlowStepSchema>;
export type FlowAction = BrowserFlowStep["action"];
export type FlowStepOf<A extends FlowAction> = Extract<BrowserFlowStep, { action: A }>;

/** The action literal of a step schema. */
export const actionOf = (schema: TObject) => (schema.properties.action as TLiteral<string>).const;

/** Browser Flow: open `url`, then run the steps in order; the first failing step ends the check. */
export const browserFlowConfigSchema = Type.Object(
  {
    url: httpUrlSchema,
    steps: Type.Array(browserFlowStepSchema, { minItems: 1, maxItems: 100, description: "Steps run in order after url has loaded" }),
    headers: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 256 }), Type.String({ maxLength: 8192 }), { description: "Extra request headers sent with every request of the flow" })),
    secret_headers: secretHeadersSchema,
    ...browserCommonFields,
  },
  { additionalProperties: false },
);
export type BrowserFlowConfig = Static<typeof browserFlowConfigSchema>;

/** One step's outcome in a flow result. */
const flowStepOutcomeSchema = Type.Object(
  {
    index: Type.Integer({ minimum: 1, description: "Position of the step, from 1" }),
    action: Type.String({ description: "The step's action" }),
    name: Type.Union([Type.String(), Type.Null()], { description: "The step's name, when it has one" }),
    status: Type.Union([Type.Literal("passed"), Type.Literal("failed"), Type.Literal("skipped")], { description: "skipped: a step before it failed" }),
    duration_ms: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], { description: "Time the step took, ms; null when skipped" }),
    error: Type.Union([Type.String(), Type.Null()], { description: "Why the step failed" }),
    detail: Type.Union([Type.String(), Type.Null()], { description: "What the step saw: the extracted value (cut to 200 characters), the screenshot name, the status asserted" }),
  },
  { additionalProperties: false, title: "BrowserFlowStepOutcome" },
);

export const browserFlowDataSchema = dataObject("BrowserFlowData", {
  ...browserDataFields,
  steps: nullable(Type.Array(flowStepOutcomeSchema), "Every step in order with its outcome and duration"),
  steps_total: intField("Steps in the flow"),
  steps_passed: intField("Steps that passed"),
  failed_step: intField("Position (from 1) of the step that failed; null when every step passed"),
  failed_step_action: textField("Action of the step that failed"),
  failed_step_name: textField("Name of the step that failed, when it has one"),
});

/** The browser_flow check type, as the registry (schemas/check-types.ts) lists it. */
export const browserFlowSpec = defineCheckSpec({
  type: "browser_flow",
  label: "Browser (Flow) — a scripted journey succeeds",
  summary: "A real browser completes a scripted journey of steps",
  runsOn: "browser",
  quota: "flow_browser",
  config: browserFlowConfigSchema,
  data: browserFlowDataSchema,
});
