import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { templateVariables } from "../../../../schemas/channels/message-template.ts";
import { api, data } from "../../api/client";
import { issuesOf } from "../../components/ui";
import type { ChannelType } from "./channel-body";

export interface TemplateValue {
  title: string;
  body: string;
  timezone: string;
}

/** What the API takes: null when both parts are blank (Watchpost's layout). */
export const templateOf = (v: TemplateValue) =>
  v.title.trim() || v.body.trim() ? { ...(v.title.trim() ? { title: v.title } : {}), ...(v.body.trim() ? { body: v.body } : {}) } : null;

const zones: string[] = (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.("timeZone") ?? ["UTC"];
export const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

/** Waits until typing pauses, so the preview is asked for once per pause, not per key. */
function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

const formatNames = { html: "HTML", slack: "Slack mrkdwn", markdown: "Markdown", plain: "plain text" } as const;

/**
 * The channel form's message template: title, body, time zone, the variables (click to insert) and a
 * live preview the API renders with a sample alert, escaped as this channel type sends it.
 */
export function MessageTemplateEditor(props: { prefix: string; type: ChannelType; value: TemplateValue; onChange: (v: TemplateValue) => void; issues: Record<string, string> }) {
  const { prefix, type, value, onChange, issues } = props;
  const body = useRef<HTMLTextAreaElement>(null);
  const template = templateOf(value);
  const asked = useDebounced(JSON.stringify({ type, template, timezone: value.timezone }), 300);
  // Judged on what is asked (debounced), not on what is typed: a blank template is never sent.
  const hasTemplate = (JSON.parse(asked) as { template: unknown }).template !== null;
  const preview = useQuery({
    queryKey: ["channel-message-preview", asked],
    queryFn: () => api.POST("/api/v1/alert-channels/preview", { body: JSON.parse(asked) }).then(data),
    enabled: hasTemplate,
    retry: false,
  });
  const previewIssues = issuesOf(preview.error);
  // Open at first when the channel has a template; after that the user's toggle rules.
  const [openAtFirst] = useState(template !== null);
  const insert = (name: string) => {
    const el = body.current;
    const tag = `{{${name}}}`;
    const at = el?.selectionStart ?? value.body.length;
    const end = el?.selectionEnd ?? at;
    onChange({ ...value, body: value.body.slice(0, at) + tag + value.body.slice(end) });
    requestAnimationFrame(() => {
      el?.focus();
      el?.setSelectionRange(at + tag.length, at + tag.length);
    });
  };
  const err = (part: string) => issues[`body.template.${part}`] ?? previewIssues[`body.template.${part}`];
  return (
    <details className="more" open={openAtFirst} data-testid="message-template">
      <summary>Message template</summary>
      <p className="muted">
        Optional. Replaces the title and body of this channel's messages. Mustache: <code>{"{{monitor.name}}"}</code>, and sections such as{" "}
        <code>{"{{#error}}Error: {{error}}{{/error}}"}</code> for values that may be empty. Values are escaped for the channel.
      </p>
      <div className="field">
        <label htmlFor={`${prefix}-tpl-title`}>Title template</label>
        <input id={`${prefix}-tpl-title`} value={value.title} maxLength={500} placeholder="[{{kind_label}}] {{monitor.name}} is {{status}}" aria-invalid={err("title") ? true : undefined} onChange={(e) => onChange({ ...value, title: e.target.value })} />
        {err("title") && <small className="field-error">Title template {err("title")}</small>}
      </div>
      <div className="field">
        <label htmlFor={`${prefix}-tpl-body`}>Body template</label>
        <textarea
          id={`${prefix}-tpl-body`}
          ref={body}
          rows={5}
          maxLength={5000}
          spellCheck={false}
          value={value.body}
          placeholder={"{{monitor.name}} is {{status}} in {{region}} since {{time}}\n{{#error}}Error: {{error}}{{/error}}\n{{links.monitor}}"}
          aria-invalid={err("body") ? true : undefined}
          onChange={(e) => onChange({ ...value, body: e.target.value })}
        />
        {err("body") && <small className="field-error">Body template {err("body")}</small>}
      </div>
      {template !== null && (
        <section aria-label="Preview" className="card" aria-live="polite">
          <strong>Preview</strong> <span className="muted">with a sample alert, as sent</span>
          {preview.isError && !previewIssues["body.template.title"] && !previewIssues["body.template.body"] ? (
            <p className="field-error">{preview.error.message}</p>
          ) : preview.data ? (
            <>
              <div className="muted">
                Title ({formatNames[preview.data.title_format]}):
              </div>
              <pre data-testid="preview-title">{preview.data.title ?? "(Watchpost's title)"}</pre>
              <div className="muted">
                Body ({formatNames[preview.data.body_format]}):
              </div>
              <pre data-testid="preview-body">{preview.data.body ?? "(Watchpost's layout)"}</pre>
            </>
          ) : (
            <p className="muted">{preview.isError ? "Fix the template to see a preview." : "Rendering…"}</p>
          )}
        </section>
      )}
      <div className="field">
        <label htmlFor={`${prefix}-tpl-tz`}>Time zone</label>
        <input id={`${prefix}-tpl-tz`} list={`${prefix}-tz-list`} value={value.timezone} maxLength={64} aria-invalid={issues["body.timezone"] ? true : undefined} onChange={(e) => onChange({ ...value, timezone: e.target.value })} />
        <datalist id={`${prefix}-tz-list`}>
          {zones.map((z) => (
            <option key={z} value={z} />
          ))}
        </datalist>
        <small className="muted">Times in messages ({"{{time}}"}, {"{{started_at}}"}) are shown in this zone.</small>
        {issues["body.timezone"] && <small className="field-error">Time zone {issues["body.timezone"]}</small>}
      </div>
      <details className="more">
        <summary>Variables</summary>
        <ul className="template-variables" aria-label="Template variables">
          {templateVariables.map((v) => (
            <li key={v.name}>
              <button type="button" className="link" onClick={() => insert(v.name)} title="Insert into the body">
                <code>{`{{${v.name}}}`}</code>
              </button>{" "}
              <span className="muted">{v.description}</span>
            </li>
          ))}
        </ul>
      </details>
    </details>
  );
}
