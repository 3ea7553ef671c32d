import { cssProblems } from "./css-sanitise.ts";
import { escapeHtml as e } from "./html.ts";
import type { PublicBar, PublicComponent, PublicIncident, PublicPage } from "./public-model.ts";
import { STATUS_TEXT } from "./public-model.ts";
import { themeVariables, type ThemeView } from "./themes.ts";

const BASE_CSS = `*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--wp-background);color:var(--wp-text)}
a{color:var(--wp-accent)}.wrap{max-width:60rem;margin:0 auto;padding:1rem}.skip{position:absolute;left:-999px}.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap;margin:0}.skip:focus{left:1rem;top:1rem;background:var(--wp-surface);padding:.5rem}
header{display:flex;align-items:center;gap:1rem;padding:1.5rem 0}header img{max-height:3rem}h1{margin:0;font-size:1.75rem}h2{font-size:1.25rem;margin:2rem 0 .75rem}
.card{background:var(--wp-surface);border:1px solid var(--wp-border);border-radius:.5rem;padding:1rem;margin:.75rem 0}
.overall{font-size:1.25rem;font-weight:600;border-left:.5rem solid var(--wp-up)}.overall.s-degraded,.overall.s-partial_outage{border-left-color:var(--wp-degraded)}.overall.s-major_outage{border-left-color:var(--wp-down)}.overall.s-maintenance{border-left-color:var(--wp-maintenance)}
ul.comps{list-style:none;padding:0;margin:0}.comp{display:grid;grid-template-columns:1fr auto;gap:.25rem 1rem}.comp h3{margin:0;font-size:1rem}.comp p{margin:0;color:var(--wp-muted);font-size:.875rem}
.st{font-weight:600}.st::before{content:"";display:inline-block;width:.7rem;height:.7rem;border-radius:50%;margin-right:.4rem;background:currentColor}
.s-operational{color:var(--wp-up)}.s-degraded,.s-partial_outage{color:var(--wp-degraded)}.s-major_outage{color:var(--wp-down)}.s-maintenance{color:var(--wp-maintenance)}.s-unknown{color:var(--wp-muted)}
.overall.s-operational,.overall.s-degraded,.overall.s-partial_outage,.overall.s-major_outage,.overall.s-maintenance,.overall.s-unknown{color:var(--wp-text)}
ol.bars{grid-column:1/-1;display:flex;gap:2px;list-style:none;margin:.5rem 0 0;padding:0;height:2rem}ol.bars li{flex:1;border-radius:2px;background:var(--wp-muted);opacity:.35}
ol.bars li.b0{background:var(--wp-up);opacity:1}ol.bars li.b1{background:var(--wp-degraded);opacity:1}ol.bars li.b2{background:var(--wp-down);opacity:1}
.legend{grid-column:1/-1;display:flex;justify-content:space-between;color:var(--wp-muted);font-size:.8rem}
.incident h3{margin:0 0 .25rem}.timeline{list-style:none;padding:0;margin:.5rem 0 0}.timeline li{border-left:2px solid var(--wp-border);padding:0 0 .75rem .75rem}
.timeline strong{text-transform:capitalize}time{color:var(--wp-muted);font-size:.875rem}
form{display:flex;gap:.5rem;flex-wrap:wrap}label{width:100%}input{font:inherit;padding:.5rem;border:1px solid var(--wp-border);border-radius:.25rem;background:var(--wp-surface);color:var(--wp-text);flex:1;min-width:12rem}
button{font:inherit;padding:.5rem 1rem;border:0;border-radius:.25rem;background:var(--wp-accent);color:var(--wp-surface);cursor:pointer}
:focus-visible{outline:3px solid var(--wp-accent);outline-offset:2px}footer{color:var(--wp-muted);font-size:.875rem;padding:2rem 0}`;

/** Custom CSS is checked on write; checked again here so a stored value from before a rule change cannot run. */
const safeCustomCss = (css: string) => (css && cssProblems(css).length === 0 ? css : "");

/**
 * The whole document: its only style is one <style> element (theme variables, base CSS, checked
 * custom CSS) and no style attribute, so the CSP can allow exactly that element by its hash.
 */
function documentShell(opts: { title: string; theme: ThemeView; body: string; head?: string }): string {
  const { theme } = opts;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${e(opts.title)}</title>${theme.favicon_url ? `<link rel="icon" href="${e(theme.favicon_url)}">` : ""}${opts.head ?? ""}
<style>${themeVariables(theme)}
${BASE_CSS}
${safeCustomCss(theme.custom_css)}</style></head>
<body><a class="skip" href="#main">Skip to content</a><div class="wrap">${opts.body}</div></body></html>`;
}

const dateText = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`;
const time = (iso: string) => `<time datetime="${iso}">${dateText(iso)}</time>`;

function barClass(b: PublicBar): string {
  if (b.uptime_pct === null) return "";
  if (b.uptime_pct >= 99.9) return "b0";
  return b.uptime_pct >= 95 ? "b1" : "b2";
}

function barTitle(b: PublicBar): string {
  if (b.uptime_pct === null) return `${b.date}: no data`;
  return `${b.date}: ${b.uptime_pct.toFixed(2)}%${b.failed ? ` (${b.failed}/${b.checks} failed)` : ""}`;
}

/** What a screen reader hears instead of 90 bars: the figure and every day below 99.9 %. */
function barSummary(c: PublicComponent): string {
  const bad = c.bars.filter((b) => b.uptime_pct !== null && b.uptime_pct < 99.9);
  const days = bad.length ? `Days below 99.9%: ${bad.map((b) => `${b.date} ${b.uptime_pct!.toFixed(2)}%`).join(", ")}.` : "No day below 99.9%.";
  return `90-day uptime ${c.uptime_90d_pct === null ? "unknown" : `${c.uptime_90d_pct.toFixed(2)}%`}. ${days}`;
}

function component(c: PublicComponent): string {
  const uptime = c.uptime_90d_pct === null ? "no data" : `${c.uptime_90d_pct.toFixed(2)}% uptime`;
  const bars = c.bars.map((b) => `<li class="${barClass(b)}" title="${barTitle(b)}"></li>`).join("");
  return `<li class="card comp"><h3>${e(c.name)}</h3><span class="st s-${c.status}">${STATUS_TEXT[c.status]}</span>${c.description ? `<p>${e(c.description)}</p>` : ""}
<p class="sr">${e(barSummary(c))}</p><ol class="bars" aria-hidden="true">${bars}</ol><div class="legend" aria-hidden="true"><span>90 days ago</span><span>${uptime}</span><span>Today</span></div></li>`;
}

/** An update's text escaped, its line breaks kept (HTML would fold them into spaces). */
const lines = (text: string) => text.split(/\r?\n/).map(e).join("<br>");

function incident(i: PublicIncident): string {
  const updates = i.updates.map((u) => `<li><strong>${e(u.status)}</strong> — ${lines(u.message)}<br>${time(u.created_at)}</li>`).join("");
  const affected = i.components.length ? `<p>Affected: ${i.components.map(e).join(", ")}</p>` : "";
  return `<article class="card incident" id="${e(i.id)}"><h3>${e(i.title)}</h3><p>Impact: ${e(i.impact)} · Status: ${e(i.status)}</p>${affected}<ol class="timeline" aria-label="Updates, newest first">${updates}</ol></article>`;
}

/** The whole public page; `base` is "/status/<slug>" or "" on a custom domain. Works without JavaScript. */
export function renderStatusHtml(model: PublicPage, theme: ThemeView, base: string): string {
  const { page } = model;
  const sections = model.sections
    .map((s, n) => `<section aria-labelledby="sec-${n}"><h2 id="sec-${n}">${e(s.name)}</h2><ul class="comps">${s.components.map(component).join("")}</ul></section>`)
    .join("");
  const active = model.incidents.active.length ? `<section aria-labelledby="h-active"><h2 id="h-active">Active incidents</h2>${model.incidents.active.map(incident).join("")}</section>` : "";
  const maintenance = model.maintenance.length
    ? `<section aria-labelledby="h-maint"><h2 id="h-maint">Scheduled maintenance</h2>${model.maintenance
        .map(
          (m) =>
            `<article class="card"><h3>${e(m.name)}</h3><p>${m.state === "active" ? "In progress" : "Upcoming"}${m.starts_at ? ` · from ${time(m.starts_at)}` : ""}${m.ends_at ? ` · until ${time(m.ends_at)}` : ""}</p>${m.description ? `<p>${e(m.description)}</p>` : ""}</article>`,
        )
        .join("")}</section>`
    : "";
  const recent = `<section aria-labelledby="h-recent"><h2 id="h-recent">Past incidents</h2>${model.incidents.recent.length ? model.incidents.recent.map(incident).join("") : "<p>No incidents in the last 14 days.</p>"}</section>`;
  const body = `<header>${theme.logo_url ? `<img src="${e(theme.logo_url)}" alt="">` : ""}<div><h1>${e(page.name)}</h1>${page.description ? `<p>${e(page.description)}</p>` : ""}</div></header>
<main id="main"><p class="card overall s-${model.status.indicator}" role="status">${e(model.status.description)}</p>
${active}${maintenance}${sections}${recent}
<section aria-labelledby="h-sub"><h2 id="h-sub">Get updates</h2><form method="post" action="${base}/subscribe"><label for="sub-email">Email address for incident updates</label><input id="sub-email" type="email" name="email" required autocomplete="email"><button type="submit">Subscribe</button></form>
<p><a href="${base}/feed.rss">RSS</a> · <a href="${base}/feed.atom">Atom</a> · <a href="${base}/index.json">JSON</a></p></section></main>
<footer>Updated ${time(model.generated_at)} · Powered by Watchpost</footer>`;
  return documentShell({ title: `${page.name} status`, theme, body, head: `<link rel="alternate" type="application/rss+xml" href="${base}/feed.rss" title="${e(page.name)} incidents">` });
}

export function renderPasswordForm(pageName: string, theme: ThemeView, base: string, wrong: boolean): string {
  const body = `<header><h1>${e(pageName)}</h1></header><main id="main"><div class="card"><h2>This status page is protected</h2>
${wrong ? `<p role="alert">That password is not right. Try again.</p>` : ""}<form method="post" action="${base}/login"><label for="pw">Password</label><input id="pw" type="password" name="password" required autocomplete="current-password"${wrong ? ' aria-invalid="true"' : ""}><button type="submit">View status</button></form></div></main>`;
  return documentShell({ title: `${pageName} status`, theme, body });
}

/** A page that asks before it acts: one button posting `fields` to `action` (links in emails only ever ask). */
export function renderConfirmForm(title: string, message: string, theme: ThemeView, form: { action: string; button: string; fields?: Record<string, string> }): string {
  const hidden = Object.entries(form.fields ?? {})
    .map(([name, value]) => `<input type="hidden" name="${e(name)}" value="${e(value)}">`)
    .join("");
  const body = `<main id="main"><div class="card"><h1>${e(title)}</h1><p>${e(message)}</p><form method="post" action="${e(form.action)}">${hidden}<button type="submit">${e(form.button)}</button></form></div></main>`;
  return documentShell({ title, theme, body });
}

export function renderMessage(title: string, message: string, theme: ThemeView, link?: { href: string; text: string }): string {
  const body = `<main id="main"><div class="card"><h1>${e(title)}</h1><p>${e(message)}</p>${link ? `<p><a href="${e(link.href)}">${e(link.text)}</a></p>` : ""}</div></main>`;
  return documentShell({ title, theme, body });
}
