import { escapeXml as x } from "./html.ts";
import type { PublicIncident, PublicPage } from "./public-model.ts";

const entries = (model: PublicPage): PublicIncident[] => [...model.incidents.active, ...model.incidents.recent].sort((a, b) => b.updated_at.localeCompare(a.updated_at));

const summary = (i: PublicIncident) => i.updates.map((u) => `${u.created_at} ${u.status}: ${u.message}`).join("\n");

/** RSS 2.0 of the page's active and recent incidents; `url` is the page's absolute URL. */
export function renderRss(model: PublicPage, url: string): string {
  const items = entries(model)
    .map(
      (i) => `<item><title>${x(`${i.title} (${i.status})`)}</title><link>${x(`${url}#${i.id}`)}</link><guid isPermaLink="false">${x(`${i.id}:${i.updated_at}`)}</guid><pubDate>${new Date(i.updated_at).toUTCString()}</pubDate><description>${x(summary(i))}</description></item>`,
    )
    .join("");
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>${x(model.page.name)} incidents</title><link>${x(url)}</link><atom:link href="${x(`${url}/feed.rss`)}" rel="self" type="application/rss+xml"/><description>${x(`Incidents and updates from ${model.page.name}`)}</description><lastBuildDate>${new Date(model.generated_at).toUTCString()}</lastBuildDate>${items}</channel></rss>`;
}

export function renderAtom(model: PublicPage, url: string): string {
  const list = entries(model);
  const updated = list[0]?.updated_at ?? model.page.updated_at;
  const items = list
    .map(
      (i) => `<entry><id>${x(`${url}#${i.id}`)}</id><title>${x(`${i.title} (${i.status})`)}</title><updated>${i.updated_at}</updated><published>${i.created_at}</published><link href="${x(`${url}#${i.id}`)}"/><content type="text">${x(summary(i))}</content></entry>`,
    )
    .join("");
  return `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><id>${x(url)}</id><title>${x(model.page.name)} incidents</title><updated>${updated}</updated><link href="${x(url)}"/><link rel="self" href="${x(`${url}/feed.atom`)}"/><author><name>${x(model.page.name)}</name></author>${items}</feed>`;
}
