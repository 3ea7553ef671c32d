import { createContext, useContext, useId, useRef, useState } from "react";
import { toInput, type FormField } from "../lib/schema-form";
import { withLabel } from "./ui";

interface Props {
  fields: FormField[];
  /** Input names are `<prefix>.<field path>`; issues are keyed `<issuePrefix>.<field path>`. */
  prefix: string;
  issuePrefix: string;
  value?: Record<string, unknown>;
  issues: Record<string, string>;
}

const hintOf = (f: FormField) => {
  const parts = [f.description];
  if (f.kind === "lines") parts.push(f.commas ? "one per line or comma separated" : "one per line");
  if (f.kind === "pairs") parts.push("one Name: value per line");
  if (f.default !== undefined && f.kind !== "checkbox") parts.push(`default ${Array.isArray(f.default) ? f.default.join(", ") : String(f.default)}`);
  return parts.filter(Boolean).join("; ");
};

/** Makes input ids unique when two generated forms share a page (an edit form above a new one). */
const IdBase = createContext("sf");

/** Required settings first; the optional ones fold under "More settings" unless one has an issue. */
export function SchemaFields({ fields, prefix, issuePrefix, value = {}, issues }: Props) {
  const required = fields.filter((f) => f.required);
  const optional = fields.filter((f) => !f.required);
  const hasIssue = optional.some((f) => Object.keys(issues).some((k) => k === `${issuePrefix}.${f.path}` || k.startsWith(`${issuePrefix}.${f.path}.`)));
  const uid = useId().replace(/\W/g, "");
  const render = (f: FormField) => <SchemaField key={f.path} field={f} prefix={prefix} issuePrefix={issuePrefix} value={value[f.key]} issues={issues} />;
  return (
    <IdBase.Provider value={`sf${uid}`}>
      {required.map(render)}
      {optional.length > 0 && (
        <details className="more" open={hasIssue || undefined}>
          <summary>More settings</summary>
          {optional.map(render)}
        </details>
      )}
    </IdBase.Provider>
  );
}

function SchemaField({ field: f, prefix, issuePrefix, value, issues }: { field: FormField; prefix: string; issuePrefix: string; value: unknown; issues: Record<string, string> }) {
  const name = `${prefix}.${f.path}`;
  const id = `${useContext(IdBase)}-${name.replace(/\W+/g, "-")}`;
  const error = issues[`${issuePrefix}.${f.path}`];
  const hint = hintOf(f);
  const shown = toInput(f, value);
  const described = [hint && `${id}-hint`, error && `${id}-err`].filter(Boolean).join(" ") || undefined;
  const after = (
    <>
      {hint && (
        <small id={`${id}-hint`} className="muted">
          {hint}
        </small>
      )}
      {error && (
        <small id={`${id}-err`} className="field-error">
          {withLabel(f.label, error)}
        </small>
      )}
    </>
  );
  const common = { id, name, "aria-invalid": error ? true : undefined, "aria-describedby": described } as const;

  switch (f.kind) {
    case "checkbox":
      return (
        <div className="field">
          <label className="inline">
            <input type="checkbox" {...common} defaultChecked={shown === undefined ? f.default === true : Boolean(shown)} /> {f.label}
          </label>
          {after}
        </div>
      );
    case "multi":
      return (
        <fieldset aria-describedby={described}>
          <legend>{f.label}</legend>
          {f.options!.map((o) => (
            <label key={o} className="inline">
              <input type="checkbox" name={name} value={o} defaultChecked={((shown as string[] | undefined) ?? (f.default as string[] | undefined) ?? []).includes(o)} /> {o}
            </label>
          ))}
          {after}
        </fieldset>
      );
    case "group":
      return (
        <fieldset>
          <legend>{f.label}</legend>
          {f.fields!.map((g) => (
            <SchemaField key={g.path} field={g} prefix={prefix} issuePrefix={issuePrefix} value={(value as Record<string, unknown> | undefined)?.[g.key]} issues={issues} />
          ))}
          {after}
        </fieldset>
      );
    case "variant":
      return <VariantField field={f} prefix={prefix} issuePrefix={issuePrefix} value={value as Record<string, unknown> | undefined} issues={issues} />;
    case "rows":
      return <RowsField field={f} prefix={prefix} issuePrefix={issuePrefix} value={value as Record<string, unknown>[] | undefined} issues={issues} />;
    case "select":
      return (
        <div className="field">
          <label htmlFor={id}>{f.label}</label>
          <select {...common} defaultValue={(shown as string | undefined) ?? (f.required ? undefined : "")} required={f.required}>
            {!f.required && <option value="">{f.default !== undefined ? `Default (${String(f.default)})` : "Not set"}</option>}
            {f.options!.map((o) => (
              <option key={o}>{o}</option>
            ))}
          </select>
          {after}
        </div>
      );
  }
  const multiline = f.kind === "lines" || f.kind === "pairs" || f.kind === "json" || f.kind === "textarea";
  return (
    <div className="field">
      <label htmlFor={id}>
        {f.label}
        {f.required ? "" : " (optional)"}
      </label>
      {multiline ? (
        <textarea {...common} rows={f.kind === "json" ? 6 : 3} required={f.required} defaultValue={shown as string | undefined} spellCheck={false} />
      ) : (
        <input
          {...common}
          type={f.kind === "number" ? "number" : "text"}
          inputMode={f.kind === "number" ? "numeric" : undefined}
          min={f.min}
          max={f.max}
          step={f.integer ? 1 : "any"}
          required={f.required}
          defaultValue={shown as string | undefined}
          placeholder={f.key === "url" ? "https://example.com/health" : undefined}
          autoComplete="off"
          list={f.suggestions ? `${id}-suggestions` : undefined}
        />
      )}
      {f.suggestions && (
        <datalist id={`${id}-suggestions`}>
          {f.suggestions.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
      )}
      {after}
    </div>
  );
}

function VariantField({ field: f, prefix, issuePrefix, value, issues }: { field: FormField; prefix: string; issuePrefix: string; value?: Record<string, unknown>; issues: Record<string, string> }) {
  const [type, setType] = useState(String(value?.type ?? ""));
  const id = `${useContext(IdBase)}-${prefix}-${f.path}-type`.replace(/\W+/g, "-");
  return (
    <fieldset>
      <legend>{f.label}</legend>
      <div className="field">
        <label htmlFor={id}>Kind</label>
        <select id={id} name={`${prefix}.${f.path}.type`} value={type} onChange={(e) => setType(e.target.value)}>
          <option value="">None</option>
          {Object.keys(f.variants!).map((v) => (
            <option key={v}>{v}</option>
          ))}
        </select>
      </div>
      {type &&
        (f.variants![type] ?? []).map((g) => (
          <SchemaField key={`${type}-${g.path}`} field={g} prefix={prefix} issuePrefix={issuePrefix} value={value?.type === type ? value[g.key] : undefined} issues={issues} />
        ))}
      {issues[`${issuePrefix}.${f.path}`] && <small className="field-error">{withLabel(f.label, issues[`${issuePrefix}.${f.path}`]!)}</small>}
    </fieldset>
  );
}

/** A list of flat objects (HTTP assertions) as rows of inputs, with buttons to add and remove rows. */
function RowsField({ field: f, prefix, issuePrefix, value, issues }: { field: FormField; prefix: string; issuePrefix: string; value?: Record<string, unknown>[]; issues: Record<string, string> }) {
  const nextId = useRef(0);
  const newRow = (v: Record<string, unknown> = {}) => ({ id: nextId.current++, value: v });
  const [rows, setRows] = useState(() => (Array.isArray(value) ? value : []).map((v) => newRow(v)));
  // Issues name rows by position: once a row is added or removed they point at the wrong rows until the next save.
  const staleIssues = useRef<Record<string, string> | null>(null);
  const rowIssues = staleIssues.current === issues ? {} : issues;
  const changeRows = (change: (list: typeof rows) => typeof rows) => {
    staleIssues.current = issues;
    setRows(change);
  };
  const base = `${useContext(IdBase)}-${prefix}-${f.path}`.replace(/\W+/g, "-");
  const one = f.label.replace(/s$/, "");
  const error = issues[`${issuePrefix}.${f.path}`];
  const setCell = (id: number, key: string, v: string) => setRows((list) => list.map((r) => (r.id === id ? { ...r, value: { ...r.value, [key]: v } } : r)));
  /** A select's value as shown: the row's own, or the first choice. */
  const selected = (g: FormField, row: Record<string, unknown>, options: readonly string[]) => {
    const current = row[g.key];
    if (current !== undefined && options.includes(String(current))) return String(current);
    return g.required ? (options[0] ?? "") : "";
  };
  const optionsOf = (g: FormField, row: Record<string, unknown>): readonly string[] => {
    const by = g.optionsBy;
    if (!by) return g.options ?? [];
    const driver = f.fields!.find((x) => x.key === by.field)!;
    return by.options[selected(driver, row, driver.options ?? [])] ?? g.options ?? [];
  };
  return (
    <fieldset className="rows-field" aria-describedby={f.description ? `${base}-hint` : undefined}>
      <legend>{f.label}</legend>
      {f.description && (
        <small id={`${base}-hint`} className="muted">
          {f.description}
        </small>
      )}
      {rows.map((row, i) => (
        <div key={row.id} className="rows-field-row" role="group" aria-label={`${one} ${i + 1}`}>
          {f.fields!.map((g) => {
            const cellError = rowIssues[`${issuePrefix}.${f.path}.${i}.${g.key}`];
            const id = `${base}-${row.id}-${g.key}`;
            const name = `${prefix}.${f.path}.${i}.${g.key}`;
            const current = row.value[g.key];
            const options = optionsOf(g, row.value);
            const when = g.usedWhen;
            const driver = when && f.fields!.find((x) => x.key === when.field);
            const driverValue = driver ? selected(driver, row.value, optionsOf(driver, row.value)) : "";
            // A column the row does not use is disabled, so the form leaves it out.
            const unused = Boolean(when && !when.values.includes(driverValue));
            return (
              <div key={g.key} className="field">
                <label htmlFor={id}>{g.label}</label>
                {g.kind === "select" ? (
                  <select id={id} name={name} value={selected(g, row.value, options)} onChange={(e) => setCell(row.id, g.key, e.target.value)} aria-invalid={cellError ? true : undefined}>
                    {!g.required && <option value="">{g.default !== undefined ? `Default (${String(g.default)})` : "Not set"}</option>}
                    {options.map((o) => (
                      <option key={o}>{o}</option>
                    ))}
                  </select>
                ) : (
                  <input
                    id={id}
                    name={name}
                    type="text"
                    defaultValue={current === undefined ? undefined : String(current)}
                    disabled={unused}
                    placeholder={unused ? "not used" : g.example}
                    autoComplete="off"
                    spellCheck={false}
                    aria-invalid={cellError ? true : undefined}
                  />
                )}
                {cellError && <small className="field-error">{withLabel(g.label, cellError)}</small>}
              </div>
            );
          })}
          <button type="button" className="link" onClick={() => changeRows((list) => list.filter((r) => r.id !== row.id))} aria-label={`Remove ${one.toLowerCase()} ${i + 1}`}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" onClick={() => changeRows((list) => [...list, newRow()])}>
        Add {one.toLowerCase()}
      </button>
      {error && <small className="field-error">{withLabel(f.label, error)}</small>}
    </fieldset>
  );
}
