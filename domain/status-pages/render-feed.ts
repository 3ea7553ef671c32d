import { escapeHtml, escapeXml as x } from "./html.ts";
import type { PublicIncident, PublicPage } from "./public-model.ts";

const entries = (model: PublicPage): PublicIncident[] => [...model.incidents.active, ...model.incidents.recent].sort((a, b) => b.updated_at.localeCompare(a.updated_at));

/** One line per line of text: an update's own line breaks become the RSS description's <br> as the page shows them. */
const summaryLines = (i: PublicIncident) => i.updates.flatMap((u) => `${u.created_at} ${u.status}: ${u.message}`.split(/\r?\n/));

/**
 * RSS readers render <description> as HTML, so it carries the text HTML-escaped (then XML-escaped),
 * exactly as the status page shows it: whatever was typed arrives as characters, never as elements.
 */
const rssHtml = (lines: string[]) => x(lines.map(escapeHtml).join("<br>"));

/**
 * RSS 2.0 calls <title> plain text, yet many readers render it as HTML: angle brackets are escaped
 * for them too, so no reader builds an element from it; '&' stays as typed for the plain-text ones.
 */
const rssTitle = (s: string) => x(s.replace(/</g, "&lt;").replace(/>/g, "&gt;"));

/** RSS 2.0 of the page's active and recent incidents; `url` is the page's absolute URL. */
export function renderRss(model: PublicPage, url: string): string {
  const items = entries(model)
    .map(
      (i) => `<item><title>${rssTitle(`${i.title} (${i.status})`)}</title><link>${x(`${url}#${i.id}`)}</link><guid isPermaLink="false">${x(`${i.id}:${i.updated_at}`)}</guid><pubDate>${new Date(i.updated_at).toUTCString()}</pubDate><description>${rssHtml(summaryLines(i))}</description></item>`,
    )
    .join("");
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>${rssTitle(`${model.page.name} incidents`)}</title><link>${x(url)}</link><atom:link href="${x(`${url}/feed.rss`)}" rel="self" type="application/rss+xml"/><description>${rssHtml([`Incidents and updates from ${model.page.name}`])}</description><lastBuildDate>${new Date(model.generated_at).toUTCString()}</lastBuildDate>${items}</channel></rss>`;
}

/** Atom says what its text is: every title and content is type="text", which readers never render as HTML. */
export function renderAtom(model: PublicPage, url: string): string {
  const list = entries(model);
  const updated = list[0]?.updated_at ?? model.page.updated_at;
  const items = list
    .map(
      (i) => `<entry><id>${x(`${url}#${i.id}`)}</id><title>${x(`${i.title} (${i.status})`)}</title><updated>${i.updated_at}</updated><published>${i.created_at}</published><link href="${x(`${url}#${i.id}`)}"/><content type="text">${x(summaryLines(i).join("\n"))}</content></entry>`,
    )
    .join("");
  return `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><id>${x(url)}</id><title>${x(model.page.name)} incidents</title><updated>${updated}</updated><link href="${x(url)}"/><link rel="self" href="${x(`${url}/feed.atom`)}"/><author><name>${x(model.page.name)}</name></author>${items}</feed>`;
}
