import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type CSSProperties } from "react";
import { api, data } from "../../api/client";
import { ErrorMessage, Field, Loading } from "../../components/ui";
import { type ComponentStatus, overallStatus, STATUS_COLOUR, STATUS_TEXT } from "./preview-status";
import type { StatusPage } from "./status-page-api";

type Colors = Record<string, string>;

/** Colours a custom theme sets with pickers (the rest keep the light theme's). */
const EDITABLE = [
  ["background", "Background"],
  ["surface", "Panels"],
  ["text", "Text"],
  ["muted", "Secondary text"],
  ["accent", "Links and accents"],
  ["border", "Borders"],
  ["up", "Operational"],
  ["degraded", "Degraded"],
  ["down", "Outage"],
  ["maintenance", "Maintenance"],
] as const;

/** Picks a built-in or custom theme (or makes one) and shows the page in it as you choose. */
export function ThemePicker({ page }: { page: StatusPage }) {
  const qc = useQueryClient();
  const themes = useQuery({ queryKey: ["themes"], queryFn: () => api.GET("/api/v1/themes", { params: { query: { limit: 100 } } }).then(data) });
  const [chosen, setChosen] = useState(page.theme_id);
  const [draft, setDraft] = useState<Colors | null>(null);
  const [saved, setSaved] = useState("");
  const apply = useMutation({
    mutationFn: (theme_id: string) => api.PATCH("/api/v1/status-pages/{id}", { params: { path: { id: page.id } }, body: { theme_id } }).then(data),
    onSuccess: (p) => {
      qc.setQueryData(["status-page", page.id], p);
      setSaved(`The page now uses this theme.`);
    },
  });
  const create = useMutation({
    mutationFn: (body: { name: string; colors: Colors }) => api.POST("/api/v1/themes", { body }).then(data),
    onSuccess: (t) => {
      void qc.invalidateQueries({ queryKey: ["themes"] });
      setDraft(null);
      setChosen(t.id);
      // The new theme is chosen, not yet in use: the last "now uses" line was about another one.
      setSaved("");
    },
  });
  if (themes.isPending) return <Loading what="themes" />;
  if (themes.isError) return <ErrorMessage error={themes.error} />;
  const list = themes.data.data;
  const current = list.find((t) => t.id === chosen) ?? list[0]!;
  const preview = draft ?? current.colors;
  return (
    <div className="grid-2">
      <div>
        <fieldset>
          <legend>Theme</legend>
          {list.map((t) => (
            <label key={t.id} className="inline" style={{ display: "flex", margin: "0.3rem 0" }}>
              <input
                type="radio"
                name="theme"
                value={t.id}
                checked={!draft && chosen === t.id}
                onChange={() => {
                  setDraft(null);
                  setChosen(t.id);
                  setSaved("");
                }}
              />
              <Swatches colors={t.colors} /> {t.name}
              {t.id === page.theme_id && <span className="muted"> (in use)</span>}
            </label>
          ))}
        </fieldset>
        <div className="row">
          <button className="primary" disabled={Boolean(draft) || chosen === page.theme_id || apply.isPending} onClick={() => apply.mutate(chosen)}>
            Use {current.name}
          </button>
          <span role="status">{saved}</span>
        </div>
        <ErrorMessage error={apply.error} />
        {draft ? (
          <form
            className="card"
            aria-label="New theme"
            onSubmit={(e) => {
              e.preventDefault();
              create.mutate({ name: String(new FormData(e.currentTarget).get("theme_name")).trim(), colors: draft });
            }}
          >
            <h2>New theme</h2>
            <Field label="Theme name" name="theme_name" required maxLength={120} placeholder="Acme brand" />
            <div className="grid-2">
              {EDITABLE.map(([key, label]) => (
                <Field key={key} label={label} name={`color_${key}`} type="color" value={toHex(draft[key] ?? "#000000")} onChange={(e) => setDraft({ ...draft, [key]: e.target.value })} />
              ))}
            </div>
            <ErrorMessage error={create.error} />
            <div className="row">
              <button className="primary" disabled={create.isPending}>
                Save theme
              </button>
              <button type="button" onClick={() => setDraft(null)}>
                Cancel
              </button>
            </div>
          </form>
        ) : (
          <button
            type="button"
            onClick={() => {
              setDraft(Object.fromEntries(EDITABLE.map(([k]) => [k, toHex(current.colors[k] ?? "#000000")])));
              setSaved("");
            }}
          >
            New theme from {current.name}
          </button>
        )}
      </div>
      <ThemePreview page={page} colors={preview} />
    </div>
  );
}

/** #rgb → #rrggbb (colour inputs take only the long form); other notations fall back to black. */
function toHex(c: string): string {
  const short = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/i.exec(c);
  if (short) return `#${short[1]}${short[1]}${short[2]}${short[2]}${short[3]}${short[3]}`.toLowerCase();
  const long = /^#([0-9a-f]{6})/i.exec(c);
  return long ? `#${long[1]!.toLowerCase()}` : "#000000";
}

function Swatches({ colors }: { colors: Colors }) {
  return (
    <span aria-hidden="true" style={{ display: "inline-flex", border: "1px solid var(--border)", borderRadius: 4, overflow: "hidden" }}>
      {["background", "surface", "accent", "up", "degraded", "down"].map((k) => (
        <span key={k} style={{ width: 14, height: 18, background: colors[k] }} />
      ))}
    </span>
  );
}

interface PreviewSection {
  id: string;
  name: string;
  components: { id: string; display_name: string; status?: ComponentStatus }[];
}

/** One of each, so the theme picker shows every status colour. */
const SAMPLES: ComponentStatus[] = ["operational", "degraded", "major_outage", "maintenance"];

/**
 * The page in the chosen colours, updated as you pick. Given `sections` (the layout editor's draft, each component
 * with its current status), it shows them as they are; without, the saved sections with sample statuses.
 */
export function ThemePreview({ page, colors, sections: draft, label = "Live preview" }: { page: StatusPage; colors: Colors; sections?: PreviewSection[]; label?: string }) {
  // Inside the layout editor the page's name is a picture of the page, not a heading of the screen.
  const Title = draft ? "p" : "h2";
  const v = (k: string) => colors[k] ?? "inherit";
  const box: CSSProperties = { background: v("background"), color: v("text"), borderColor: v("border") };
  const panel: CSSProperties = { background: v("surface"), border: `1px solid ${v("border")}`, borderRadius: 6, padding: "0.5rem" };
  let i = 0;
  const sampled = (list: PreviewSection[]) => list.map((s) => ({ ...s, components: s.components.map((c) => ({ ...c, status: SAMPLES[i++ % SAMPLES.length]! })) }));
  const own = page.layout.sections.length > 0 ? page.layout.sections : [{ id: "x", name: "Website", components: [{ id: "y", display_name: "Homepage" }] }];
  const sections = draft ?? sampled(own);
  const overall = draft ? overallStatus(draft.flatMap((s) => s.components.map((c) => c.status ?? "unknown"))) : { status: "operational" as const, text: "All systems operational" };
  return (
    <section aria-label={label} className="preview" style={box} data-testid="theme-preview">
      <p style={{ margin: 0, color: v("muted") }}>{draft ? "Preview" : "Preview with sample statuses"}</p>
      <Title style={{ marginTop: 0, fontSize: "1.5rem", fontWeight: 700 }}>{page.name}</Title>
      <p style={{ ...panel, color: v(STATUS_COLOUR[overall.status]), fontWeight: 700 }} data-testid="preview-overall">
        {overall.text}
      </p>
      {sections.length === 0 && <p style={{ color: v("muted") }}>Nothing else yet: add a section, then monitors to it.</p>}
      {sections.map((s) => (
        <div key={s.id} style={{ ...panel, marginBottom: "0.5rem" }}>
          <strong>{s.name}</strong>
          {s.components.map((c) => (
            <div key={c.id} className="row-status" style={{ borderColor: v("border") }}>
              <span>{c.display_name}</span>
              <span style={{ color: v(STATUS_COLOUR[c.status ?? "unknown"]) }}>{STATUS_TEXT[c.status ?? "unknown"]}</span>
            </div>
          ))}
        </div>
      ))}
      <a href={page.url} style={{ color: v("accent") }} target="_blank" rel="noreferrer">
        Subscribe to updates
      </a>
    </section>
  );
}
