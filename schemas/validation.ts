/**
 * One problem with a value, as the pure layer reports it. The kernel's `ValidationIssue`
 * (core/errors.ts) has the same shape, so the two are assignable both ways.
 */
export interface Issue {
  /** JSON pointer of the offending value, e.g. "/url". */
  path: string;
  message: string;
}
