import { browserDataFields } from "../../../schemas/checks/browser-data-fields.ts";
import { dataObject, flagField, msField, textField } from "../../../schemas/checks/data-fields.ts";

export const browserLiteDataSchema = dataObject("BrowserLiteData", {
  ...browserDataFields,
  ttfb_ms: msField("Navigation timing: from the start of navigation to the first byte of the document (redirects included), ms"),
  dom_content_loaded_ms: msField("Navigation timing: DOMContentLoaded finished, ms after navigation start"),
  load_ms: msField("Navigation timing: the load event finished, ms after navigation start; null when wait_until ended the check earlier"),
  lcp_ms: msField("Largest contentful paint, ms after navigation start, where the engine reports it (Chromium); null otherwise"),
  keyword_found: flagField("Whether the rendered text of the page contains keyword; null without a keyword"),
  keyword: textField("The keyword looked for (compared with case); a keyword_missing rule reads keyword_found only when it names this keyword"),
  keyword_case_sensitive: flagField("Whether the keyword was compared with case (always true here); null without a keyword"),
});
