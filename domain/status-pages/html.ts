const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text into HTML element content or a quoted attribute. */
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** XML 1.0 text (feeds, SVG): the same five entities. */
export const escapeXml = (s: string): string => escapeHtml(s);
