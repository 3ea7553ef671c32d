/**
 * The RSS and Atom feeds carry what people type into incidents. Feed readers render an RSS
 * <description> (and often a <title>) as HTML, so the feeds must hand readers text, exactly as the
 * HTML page shows it: markup typed into an incident arrives as visible characters, never as elements.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { startTestApi, type TestApi } from "../support/api.ts";
import { orgWithPage } from "./support.ts";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await api.stop();
});

const HOSTILE_TITLE = `Login <img src=x onerror=alert(1)> & "quotes"`;
const HOSTILE_MESSAGE = `<script>alert(document.cookie)</script><a href="javascript:alert(1)">details</a> 5 < 6 && 7 > 3`;

/** What an XML parser hands a feed reader: the text of every `tag` element, entities decoded once. */
function textOf(xml: string, tag: string): string[] {
  const decode = (s: string) =>
    s.replace(/&(lt|gt|quot|#39|#x[0-9a-f]+|#\d+|amp);/gi, (m, name: string) => {
      const named: Record<string, string> = { lt: "<", gt: ">", quot: '"', "#39": "'", amp: "&" };
      if (named[name.toLowerCase()]) return named[name.toLowerCase()]!;
      return String.fromCodePoint(name.startsWith("#x") ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1)));
    });
  return [...xml.matchAll(new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>`, "g"))].map((m) => decode(m[1]!));
}

/** Markup a reader rendering the text as HTML would turn into elements (other than the feed's own line breaks). */
const ELEMENT = /<\s*(?!br>)[a-z!/?]/i;

describe("incident feeds", () => {
  it("sends incident text in the RSS feed as text, never as markup a reader would render", async () => {
    const { slug, call, componentIds, pageId } = await orgWithPage(api);
    expect((await call("PATCH", `/api/v1/status-pages/${pageId}`, { name: "Acme <b onmouseover=alert(1)>Status</b>" })).status).toBe(200);
    const created = await call("POST", "/api/v1/incidents", { title: HOSTILE_TITLE, impact: "major", message: HOSTILE_MESSAGE, component_ids: [componentIds[0]] });
    expect(created.status).toBe(201);
    expect((await call("POST", `/api/v1/incidents/${created.body.id}/updates`, { status: "identified", message: "<iframe src=https://evil.example></iframe>" })).status).toBe(201);
    const rss = await (await fetch(`${api.url}/status/${slug}/feed.rss`)).text();
    const items = rss.slice(rss.indexOf("<item>"));
    const descriptions = textOf(items, "description");
    const titles = textOf(rss, "title");
    expect(descriptions).toHaveLength(1);
    expect(titles).toHaveLength(2);
    descriptions.push(...textOf(rss.slice(0, rss.indexOf("<item>")), "description"));
    for (const html of [...descriptions, ...titles]) expect({ html, markup: ELEMENT.test(html) }).toEqual({ html, markup: false });
    // The words are all there, shown as typed once the reader renders the HTML.
    const shown = descriptions[0]!.replace(/<br>/g, "\n").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&");
    expect(shown).toContain(HOSTILE_MESSAGE);
    expect(shown).toContain("<iframe src=https://evil.example></iframe>");
  });

  it("marks every Atom text construct as text, so readers never render it as HTML", async () => {
    const { slug, call, componentIds } = await orgWithPage(api);
    expect((await call("POST", "/api/v1/incidents", { title: HOSTILE_TITLE, impact: "minor", message: HOSTILE_MESSAGE, component_ids: [componentIds[1]] })).status).toBe(201);
    const atom = await (await fetch(`${api.url}/status/${slug}/feed.atom`)).text();
    for (const m of atom.matchAll(/<(title|content|summary|subtitle|rights)(\s[^>]*)?>/g)) {
      const type = /\btype="([^"]+)"/.exec(m[2] ?? "")?.[1] ?? "text";
      expect({ element: m[0], type }).toEqual({ element: m[0], type: "text" });
    }
    expect(textOf(atom, "content")[0]).toContain(HOSTILE_MESSAGE);
  });

  it("keeps the line breaks of a multi-line update on the page and in the RSS description", async () => {
    const { slug, call, componentIds } = await orgWithPage(api);
    const message = "Backups have not completed.\nSecond line & <more>.";
    expect((await call("POST", "/api/v1/incidents", { title: "Two lines", impact: "minor", message, component_ids: [componentIds[0]] })).status).toBe(201);
    const html = await (await fetch(`${api.url}/status/${slug}`)).text();
    expect(html).toContain("Backups have not completed.<br>Second line &amp; &lt;more&gt;.");
    const rss = await (await fetch(`${api.url}/status/${slug}/feed.rss`)).text();
    const description = textOf(rss.slice(rss.indexOf("<item>")), "description")[0]!;
    expect(description).toContain("Backups have not completed.<br>Second line &amp; &lt;more&gt;.");
    expect(ELEMENT.test(description)).toBe(false);
  });
});
