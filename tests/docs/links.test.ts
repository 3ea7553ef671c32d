// Every relative link in README.md, the root's project files and docs/*.md resolves to a file in the
// repository, and no link leaves it (http(s) links to public sites are fine).
import { describe, expect, it } from "bun:test";
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const files = [
  ...["README.md", "CHANGELOG.md", "SECURITY.md"].filter((f) => existsSync(join(root, f))),
  ...readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => join("docs", f)),
];

/** Markdown links and images `[text](target)`, `<a href>` and reference definitions `[id]: target`, outside code. */
function linksOf(markdown: string): string[] {
  const text = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  const html = [...text.matchAll(/\b(?:href|src)="([^"]+)"/g)].map((m) => m[1]!);
  const refs = [...text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1]!);
  return [...inline, ...html, ...refs];
}

/** Slugs of a file's headings as GitHub makes them. */
function anchorsOf(markdown: string): Set<string> {
  const text = markdown.replace(/```[\s\S]*?```/g, "");
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = m[1]!.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

describe.each(files)("%s", (file) => {
  const source = readFileSync(join(root, file), "utf8");
  it("links only to files in the repository or to public http(s) sites", () => {
    const problems: string[] = [];
    for (const link of linksOf(source)) {
      if (/^(https?|mailto):/i.test(link)) continue;
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) {
        problems.push(`${link}: a scheme other than http(s)`);
        continue;
      }
      if (link.startsWith("/")) {
        problems.push(`${link}: an absolute path`);
        continue;
      }
      const [pathPart, anchor] = link.split("#") as [string, string | undefined];
      const target = pathPart ? resolve(root, dirname(file), decodeURIComponent(pathPart)) : join(root, file);
      const inside = relative(root, target);
      if (inside.startsWith("..")) {
        problems.push(`${link}: leaves the repository`);
        continue;
      }
      if (!existsSync(target)) {
        problems.push(`${link}: no such file`);
        continue;
      }
      if (relative(root, realpathSync(target)).startsWith("..")) {
        problems.push(`${link}: a symlink out of the repository`);
        continue;
      }
      if (anchor && statSync(target).isFile() && target.endsWith(".md") && !anchorsOf(readFileSync(target, "utf8")).has(anchor.toLowerCase())) {
        problems.push(`${link}: no heading #${anchor} in ${relative(root, target)}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

it("the project files a new user looks for are there", () => {
  for (const f of ["LICENSE", "CHANGELOG.md", "SECURITY.md"]) expect(existsSync(join(root, f))).toBe(true);
});
