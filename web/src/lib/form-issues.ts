export interface Issue {
  path: string;
  message: string;
}

const issueMap = (issues: Issue[]): Record<string, string> => Object.fromEntries(issues.map((i) => [i.path, i.message]));

/** Thrown by a form whose own checks failed, so it shows like the API's VALIDATION_ERROR. */
export class FormIssuesError extends Error {
  readonly issues: Record<string, string>;
  constructor(list: Issue[]) {
    super(list.length === 1 ? "One setting needs fixing" : `${list.length} settings need fixing`);
    this.issues = issueMap(list);
  }
}
