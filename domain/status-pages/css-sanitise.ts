/**
 * Custom CSS of a theme is refused (not stripped) when it could run script, pull in other
 * stylesheets or break out of the <style> element: the author sees why and fixes it.
 */
export interface CssProblem {
  message: string;
}

const IMAGE_URL = /^(https:\/\/[^\s"'()<>\\]+\.(png|jpe?g|gif|svg|webp|avif|ico)(\?[^\s"'()<>\\]*)?|data:image\/(png|jpeg|gif|webp);base64,[a-z0-9+/=]+)$/i;

/** Comments out, CSS escapes decoded (`\6a` → `j`), so `java\script:` cannot slip past the checks. */
function normaliseCss(css: string): string {
  return css
    .replace(/\/\*[\s\S]*?(\*\/|$)/g, " ")
    .replace(/\\([0-9a-f]{1,6})\s?/gi, (_, hex: string) => {
      const cp = Number.parseInt(hex, 16);
      return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : "\uFFFD";
    })
    .replace(/\\(.)/g, "$1")
    .replace(/\\\n/g, "");
}

const unquote = (s: string) => s.trim().replace(/^(['"])(.*)\1$/s, "$2").trim();

/** The problems of a stylesheet; empty when it is acceptable. */
export function cssProblems(css: string): CssProblem[] {
  const problems: CssProblem[] = [];
  if (/<\/?\s*style/i.test(css) || css.includes("<")) problems.push({ message: "'<' (and so '</style') is not allowed" });
  const norm = normaliseCss(css);
  const flat = norm.toLowerCase().replace(/\s+/g, "");
  if (flat.includes("</") || flat.includes("<")) problems.push({ message: "'<' is not allowed, even escaped" });
  if (flat.includes("expression(")) problems.push({ message: "expression() is not allowed" });
  if (flat.includes("behavior:") || flat.includes("behaviour:") || flat.includes("-moz-binding")) problems.push({ message: "behavior / -moz-binding are not allowed" });
  if (flat.includes("javascript:") || flat.includes("vbscript:")) problems.push({ message: "javascript: URLs are not allowed" });
  for (const m of norm.matchAll(/@import\s+(url\(([^)]*)\)|("[^"]*"|'[^']*'))/gi)) {
    const target = unquote(m[2] ?? m[3] ?? "");
    if (!IMAGE_URL.test(target)) problems.push({ message: `@import is only allowed for an image URL (https or data:image), not ${JSON.stringify(target.slice(0, 80))}` });
  }
  if (/@import(?!\s+(url\(|"|'))/i.test(norm)) problems.push({ message: "@import must name a URL" });
  for (const m of norm.matchAll(/url\(([^)]*)\)/gi)) {
    const target = unquote(m[1] ?? "");
    if (!IMAGE_URL.test(target)) problems.push({ message: `url() may only point at an image (https or data:image), not ${JSON.stringify(target.slice(0, 80))}` });
  }
  if (/image-set\(|src\(/i.test(norm)) problems.push({ message: "image-set() and src() are not allowed; use url()" });
  return problems;
}
