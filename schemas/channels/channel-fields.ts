import { Type } from "@sinclair/typebox";
import type { Issue } from "../validation.ts";

/** An http(s) URL; `urlIssues` adds the full parse the pattern cannot do. */
export const HttpUrl = (description: string) =>
  Type.String({ pattern: "^https?://[^\\s/?#]+", maxLength: 2048, description });

export function urlIssues(path: string, value: string): Issue[] {
  return URL.canParse(value) ? [] : [{ path, message: "must be a valid http(s) URL" }];
}
