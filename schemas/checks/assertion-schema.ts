import { Type, type Static } from "@sinclair/typebox";

/**
 * Response assertions of HTTP and keyword checks (what Checkly and Better Stack call assertions).
 * One flat shape for every source, so the dashboard edits them as rows; which operators and
 * targets a source takes is checked by assertionIssues (compile-assertion.ts) on save.
 */
const ASSERTION_SOURCES = ["status_code", "response_time", "header", "body", "json"] as const;
export type AssertionSource = (typeof ASSERTION_SOURCES)[number];

const ASSERTION_OPERATORS = [
  "equals",
  "not_equals",
  "greater_than",
  "less_than",
  "exists",
  "not_exists",
  "contains",
  "not_contains",
  "matches",
  "is_empty",
  "not_empty",
] as const;
export type AssertionOperator = (typeof ASSERTION_OPERATORS)[number];

/** The operators each source takes, in the order the dashboard offers them. */
export const OPERATORS_BY_SOURCE: Record<AssertionSource, readonly AssertionOperator[]> = {
  status_code: ["equals", "not_equals", "greater_than", "less_than"],
  response_time: ["less_than", "greater_than"],
  header: ["exists", "not_exists", "equals", "not_equals", "contains", "not_contains", "matches"],
  body: ["contains", "not_contains", "matches"],
  json: ["equals", "not_equals", "greater_than", "less_than", "contains", "not_contains", "is_empty", "not_empty", "exists", "not_exists"],
};

/** Operators that compare with nothing: target must be left out. */
export const OPERATORS_WITHOUT_TARGET: readonly AssertionOperator[] = ["exists", "not_exists", "is_empty", "not_empty"];

const MAX_ASSERTIONS = 20;
const MAX_PATTERN_LENGTH = 1024;

const literals = <T extends string>(values: readonly T[], description: string, extra: Record<string, unknown> = {}) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { description, ...extra },
  );

export const assertionSchema = Type.Object(
  {
    source: literals(ASSERTION_SOURCES, "What is checked: status_code, response_time (ms), a header, the body as text, or a JSON value of the body"),
    property: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description: "header: the header's name; json: a JSONPath expression (RFC 9535) such as $.status or $.items[0].id; unused by the other sources",
        examples: ["$.status"],
        // x-used-when: the sources that read it, so a form leaves it out for the others.
        "x-used-when": { source: ["header", "json"] },
      }),
    ),
    // x-options-by: the operators each source takes, so a form offers only those.
    operator: literals(ASSERTION_OPERATORS, "How the value is compared; each source takes some of them (docs/check-types.md)", {
      "x-options-by": { source: OPERATORS_BY_SOURCE },
    }),
    target: Type.Optional(
      Type.Union([Type.String({ maxLength: MAX_PATTERN_LENGTH }), Type.Number()], {
        description: "What the value is compared with: a number for status_code, response_time, greater_than and less_than; an RE2 regular expression for matches; left out for exists, not_exists, is_empty and not_empty",
        examples: ["ok"],
        "x-used-when": { operator: ASSERTION_OPERATORS.filter((o) => !OPERATORS_WITHOUT_TARGET.includes(o)) },
      }),
    ),
    severity: Type.Optional(
      literals(["down", "degraded"] as const, "Status of the check when this assertion fails", { default: "down" }),
    ),
  },
  { additionalProperties: false, title: "HttpAssertion" },
);
export type Assertion = Static<typeof assertionSchema>;

export const assertionsField = Type.Optional(
  Type.Array(assertionSchema, {
    maxItems: MAX_ASSERTIONS,
    description: "Checks on the response; a failed one makes the check down (or degraded, per its severity). A status_code assertion replaces expected_status.",
  }),
);

/** One assertion's outcome as a result's data.assertions lists it. */
export const assertionOutcomeSchema = Type.Object(
  {
    index: Type.Integer({ minimum: 1, description: "Position of the assertion in the config, from 1" }),
    source: Type.String({ description: "The assertion's source" }),
    property: Type.Union([Type.String(), Type.Null()], { description: "Header name or JSONPath expression" }),
    operator: Type.String({ description: "The assertion's operator" }),
    target: Type.Union([Type.String(), Type.Null()], { description: "What was expected, as text" }),
    actual: Type.Union([Type.String(), Type.Null()], { description: "What the response had (cut to 200 characters); null when there was nothing to read" }),
    passed: Type.Boolean({ description: "Whether the assertion held" }),
    severity: Type.Union([Type.Literal("down"), Type.Literal("degraded")], { description: "Status a failure gives the check" }),
  },
  { additionalProperties: false, title: "HttpAssertionOutcome" },
);
