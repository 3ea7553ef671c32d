import type { ValidationIssue } from "../../core/errors.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** The body as text, or null when it is not valid UTF-8 (RFC 8259 §8.1: JSON text is UTF-8). */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * The first key that appears twice in one object, as an issue path (`body.config.url`), or null.
 * JSON.parse keeps the last of duplicates silently, so `{"type":"tcp","type":"http"}` would mean
 * whatever the last parser in a chain decides; we refuse it instead. Malformed text yields null
 * (the parser refuses it next); nesting is already capped, so the stack stays small.
 */
export function duplicateKeyPath(text: string): string | null {
  const stack: { keys: Set<string> | null; path: string; key?: string; index: number }[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // a string: find its end, skipping escapes
      let j = i + 1;
      while (j < text.length && text.charCodeAt(j) !== 34) j += text.charCodeAt(j) === 92 ? 2 : 1;
      const top = stack[stack.length - 1];
      if (expectKey && top?.keys) {
        let key: string;
        try {
          key = JSON.parse(text.slice(i, j + 1)) as string;
        } catch {
          return null;
        }
        if (top.keys.has(key)) return `${top.path}.${key}`;
        top.keys.add(key);
        top.key = key;
        expectKey = false;
      }
      i = j;
    } else if (c === 123 || c === 91) {
      const top = stack[stack.length - 1];
      const path = !top ? "body" : top.keys ? `${top.path}.${top.key}` : `${top.path}.${top.index}`;
      stack.push({ keys: c === 123 ? new Set() : null, path, index: 0 });
      expectKey = c === 123;
    } else if (c === 125 || c === 93) {
      stack.pop();
      expectKey = false;
    } else if (c === 44) {
      const top = stack[stack.length - 1];
      if (top?.keys) expectKey = true;
      else if (top) top.index++;
    }
  }
  return null;
}

/** Why a JSON body is refused before parsing, or null when it may be parsed. */
export function jsonBodyIssue(bytes: Uint8Array): ValidationIssue | null {
  const text = decodeUtf8(bytes);
  if (text === null) return { path: "body", message: "Not valid UTF-8" };
  const dup = duplicateKeyPath(text);
  return dup ? { path: dup, message: "Duplicate key" } : null;
}
