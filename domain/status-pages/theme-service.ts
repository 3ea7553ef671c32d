import type { Actor } from "../access/actor.ts";
import type { Sql } from "../../db/client.ts";
import { conflict, notFound, permissionDenied, validationError } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { deleteTheme, findTheme, insertTheme, listThemes, type ThemeColors, type ThemeRow, themeInUse, updateTheme } from "../../db/queries/themes.ts";
import { cssProblems } from "./css-sanitise.ts";
import { BUILT_IN_THEMES, customThemeView, isBuiltInTheme, type ThemeView } from "./themes.ts";

interface Ctx {
  sql: Sql;
  actor: Actor;
}

export interface ThemeInput {
  name: string;
  colors?: ThemeColors;
  logo_url?: string | null;
  favicon_url?: string | null;
  custom_css?: string;
}

type ThemeOut = ThemeView & { created_at: string | null; updated_at: string | null };

const out = (row: ThemeRow): ThemeOut => ({ ...customThemeView(row), created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() });
const builtIn = (v: ThemeView): ThemeOut => ({ ...v, created_at: null, updated_at: null });

function checkCss(css: string): string {
  const problems = cssProblems(css);
  if (problems.length) throw validationError(problems.map((p) => ({ path: "body.custom_css", message: p.message })), "custom_css was refused");
  return css;
}

export async function listAllThemes(ctx: Ctx): Promise<ThemeOut[]> {
  return [...Object.values(BUILT_IN_THEMES).map(builtIn), ...(await listThemes(ctx.sql, ctx.actor.orgId)).map(out)];
}

export async function getTheme(ctx: Ctx, id: string): Promise<ThemeOut> {
  if (isBuiltInTheme(id)) return builtIn(BUILT_IN_THEMES[id]);
  const row = await findTheme(ctx.sql, ctx.actor.orgId, id);
  if (!row) throw notFound("Theme");
  return out(row);
}

export async function createTheme(ctx: Ctx, input: ThemeInput): Promise<ThemeOut> {
  return out(
    await insertTheme(ctx.sql, ctx.actor.orgId, newId("thm"), {
      name: input.name,
      colors: input.colors ?? {},
      logoUrl: input.logo_url ?? null,
      faviconUrl: input.favicon_url ?? null,
      customCss: checkCss(input.custom_css ?? ""),
    }),
  );
}

export async function patchTheme(ctx: Ctx, id: string, patch: Partial<ThemeInput>): Promise<ThemeOut> {
  if (isBuiltInTheme(id)) throw permissionDenied("Built-in themes are read-only; create a custom theme instead");
  const current = await findTheme(ctx.sql, ctx.actor.orgId, id);
  if (!current) throw notFound("Theme");
  const row = await updateTheme(ctx.sql, ctx.actor.orgId, id, {
    name: patch.name ?? current.name,
    colors: patch.colors ?? current.colors,
    logoUrl: patch.logo_url !== undefined ? patch.logo_url : current.logo_url,
    faviconUrl: patch.favicon_url !== undefined ? patch.favicon_url : current.favicon_url,
    customCss: patch.custom_css !== undefined ? checkCss(patch.custom_css) : current.custom_css,
  });
  return out(row!);
}

export async function removeTheme(ctx: Ctx, id: string): Promise<void> {
  if (isBuiltInTheme(id)) throw permissionDenied("Built-in themes are read-only");
  if (await themeInUse(ctx.sql, ctx.actor.orgId, id)) throw conflict("A status page still uses this theme", { theme_id: id });
  if (!(await deleteTheme(ctx.sql, ctx.actor.orgId, id))) throw notFound("Theme");
}
