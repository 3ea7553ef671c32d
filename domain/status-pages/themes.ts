import type { ThemeColors, ThemeRow } from "../../db/queries/themes.ts";

export interface ThemeView {
  id: string;
  name: string;
  built_in: boolean;
  colors: Required<ThemeColors>;
  logo_url: string | null;
  favicon_url: string | null;
  custom_css: string;
}

const light: Required<ThemeColors> = {
  background: "#f7f8fa",
  text: "#1b1f24",
  accent: "#2457c5",
  muted: "#57606a",
  surface: "#ffffff",
  border: "#d0d7de",
  up: "#1a7f37",
  degraded: "#9a6700",
  down: "#cf222e",
  maintenance: "#0969da",
};

/** Read-only themes every organisation can use by name. Contrast of text on surface is ≥ 4.5:1 in each. */
export const BUILT_IN_THEMES: Record<"light" | "dark" | "high-contrast", ThemeView> = {
  light: { id: "light", name: "Light", built_in: true, colors: light, logo_url: null, favicon_url: null, custom_css: "" },
  dark: {
    id: "dark",
    name: "Dark",
    built_in: true,
    colors: { background: "#0d1117", text: "#e6edf3", accent: "#58a6ff", muted: "#9da7b3", surface: "#161b22", border: "#30363d", up: "#3fb950", degraded: "#d29922", down: "#f85149", maintenance: "#58a6ff" },
    logo_url: null,
    favicon_url: null,
    custom_css: "",
  },
  "high-contrast": {
    id: "high-contrast",
    name: "High contrast",
    built_in: true,
    colors: { background: "#000000", text: "#ffffff", accent: "#ffff00", muted: "#ffffff", surface: "#000000", border: "#ffffff", up: "#00ff00", degraded: "#ffff00", down: "#ff6060", maintenance: "#00ffff" },
    logo_url: null,
    favicon_url: null,
    custom_css: "",
  },
};

export const isBuiltInTheme = (id: string): id is keyof typeof BUILT_IN_THEMES => Object.hasOwn(BUILT_IN_THEMES, id);

export function customThemeView(row: ThemeRow): ThemeView {
  return {
    id: row.id,
    name: row.name,
    built_in: false,
    colors: { ...light, ...row.colors },
    logo_url: row.logo_url,
    favicon_url: row.favicon_url,
    custom_css: row.custom_css,
  };
}

export const COLOR_PATTERN = "^(#[0-9a-fA-F]{3,8}|(rgb|rgba|hsl|hsla)\\([0-9.,%\\sdeg/]+\\)|[a-zA-Z]{3,20})$";
const COLOR_RE = new RegExp(COLOR_PATTERN);

/** CSS custom properties of a theme; colour values are validated on write and again here. */
export function themeVariables(theme: ThemeView): string {
  const vars = Object.entries(theme.colors)
    .filter(([, v]) => COLOR_RE.test(v))
    .map(([k, v]) => `--wp-${k}:${v}`)
    .join(";");
  return `:root{${vars}}`;
}
