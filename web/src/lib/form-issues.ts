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

const ACRONYMS: Record<string, string> = { url: "URL", id: "Id", ip: "IP", dns: "DNS", ssl: "SSL", tls: "TLS", json: "JSON", http: "HTTP" };

/**
 * An issue's path in words for people: the form's own label when it has one (`labels` keyed by the
 * API's path, `body.config.expected_status`), else the last field name spelt out ("Expected status"),
 * with the position of list items ("URL (item 3)"). Never the raw key.
 */
export function issueLabel(path: string, labels: Record<string, string> = {}): string {
  const known = labels[path] ?? labels[`body.${path}`];
  if (known) return known;
  const parts = path.replace(/^body\.?/, "").split(/\.|\[(\d+)\]/).filter((x): x is string => Boolean(x));
  const indexes = parts.filter((x) => /^\d+$/.test(x)).map((n) => Number(n) + 1);
  const key = parts.filter((x) => !/^\d+$/.test(x)).at(-1);
  if (!key) return "The request";
  const words = key.split("_").map((w) => ACRONYMS[w] ?? w);
  const text = words.join(" ").replace(/^./, (c) => c.toUpperCase());
  return indexes.length > 0 ? `${text} (item ${indexes.join(", ")})` : text;
}
