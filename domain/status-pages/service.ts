import type { Actor } from "../access/actor.ts";
import { type Sql, isUniqueViolation, withTx } from "../../db/client.ts";
import { conflict, notFound, validationError } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { assertQuota } from "../../billing/entitlements.ts";
import {
  type AccessMode,
  type ComponentRow,
  deletePage,
  findPage,
  insertPage,
  listComponents,
  listPages,
  listSections,
  replaceLayout,
  type SectionRow,
  type StatusPageRow,
  updatePage,
} from "../../db/queries/status-pages.ts";
import { findTheme } from "../../db/queries/themes.ts";
import { parseCidr } from "./access.ts";
import { isBuiltInTheme } from "./themes.ts";

export interface Ctx {
  sql: Sql;
  actor: Actor;
}

export interface PageInput {
  name: string;
  slug: string;
  description?: string;
  theme_id?: string;
  access?: { mode: AccessMode; password?: string; ip_allowlist?: string[] };
}

export interface LayoutInput {
  sections: {
    id?: string;
    name: string;
    components: { id?: string; monitor_id?: string; tag?: string; display_name: string; description?: string }[];
  }[];
}

export interface Layout {
  sections: (SectionRow & { components: ComponentRow[] })[];
}

const SLUG_RE = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

async function checkTheme(ctx: Ctx, themeId: string): Promise<void> {
  if (isBuiltInTheme(themeId)) return;
  if (!(await findTheme(ctx.sql, ctx.actor.orgId, themeId))) throw validationError([{ path: "body.theme_id", message: `Unknown theme ${themeId}` }]);
}

function checkAllowlist(list: string[]): string[] {
  const bad = list.filter((c) => !parseCidr(c));
  if (bad.length) throw validationError([{ path: "body.access.ip_allowlist", message: `Not an IP address or CIDR range: ${bad.join(", ")}` }]);
  return [...new Set(list)];
}

async function prepare(ctx: Ctx, input: Required<Omit<PageInput, "access">> & { access: NonNullable<PageInput["access"]> }, previous: StatusPageRow | null) {
  if (!SLUG_RE.test(input.slug)) throw validationError([{ path: "body.slug", message: "lower-case letters, digits and inner hyphens, at most 64" }]);
  await checkTheme(ctx, input.theme_id);
  let passwordHash: string | null = null;
  if (input.access.mode === "password") {
    if (input.access.password !== undefined) passwordHash = await Bun.password.hash(input.access.password);
    else if (previous?.password_hash) passwordHash = previous.password_hash;
    else throw validationError([{ path: "body.access.password", message: "a password page needs a password" }]);
  }
  return {
    name: input.name,
    slug: input.slug,
    description: input.description,
    themeId: input.theme_id,
    accessMode: input.access.mode,
    passwordHash,
    ipAllowlist: checkAllowlist(input.access.ip_allowlist ?? previous?.ip_allowlist ?? []),
  };
}

const slugTaken = (err: unknown, slug: string) => {
  if (isUniqueViolation(err)) return conflict(`The slug ${slug} is already in use`, { field: "slug" });
  return err;
};

export async function createPage(ctx: Ctx, input: PageInput): Promise<StatusPageRow> {
  const write = await prepare(ctx, { description: "", theme_id: "light", access: { mode: "public" }, ...input }, null);
  return withTx(ctx.sql, async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext(${`status_pages:${ctx.actor.orgId}`}))`;
    await assertQuota(tx, ctx.actor.orgId, "status_pages", 1);
    try {
      return await insertPage(tx, ctx.actor.orgId, newId("sp"), write);
    } catch (err) {
      throw slugTaken(err, input.slug);
    }
  });
}

export async function getPage(ctx: Ctx, id: string): Promise<StatusPageRow> {
  const row = await findPage(ctx.sql, ctx.actor.orgId, id);
  if (!row) throw notFound("Status page");
  return row;
}

export async function patchPage(ctx: Ctx, id: string, patch: Partial<PageInput>): Promise<StatusPageRow> {
  const current = await getPage(ctx, id);
  const access = patch.access
    ? { ...patch.access, ip_allowlist: patch.access.ip_allowlist ?? current.ip_allowlist }
    : { mode: current.access_mode, ip_allowlist: current.ip_allowlist };
  const write = await prepare(
    ctx,
    {
      name: patch.name ?? current.name,
      slug: patch.slug ?? current.slug,
      description: patch.description ?? current.description,
      theme_id: patch.theme_id ?? current.theme_id,
      access,
    },
    current,
  );
  try {
    const row = await updatePage(ctx.sql, ctx.actor.orgId, id, write);
    if (!row) throw notFound("Status page");
    return row;
  } catch (err) {
    throw slugTaken(err, write.slug);
  }
}

export async function removePage(ctx: Ctx, id: string): Promise<void> {
  if (!(await deletePage(ctx.sql, ctx.actor.orgId, id))) throw notFound("Status page");
}

export const listOrgPages = (ctx: Ctx, limit: number, offset: number) => listPages(ctx.sql, ctx.actor.orgId, limit, offset);

export async function loadLayout(sql: Sql, pageId: string): Promise<Layout> {
  const [sections, components] = await Promise.all([listSections(sql, pageId), listComponents(sql, pageId)]);
  return { sections: sections.map((s) => ({ ...s, components: components.filter((c) => c.section_id === s.id) })) };
}

/** Replaces sections and components in the given order; ids sent back are kept (incidents refer to components by id). */
export async function putLayout(ctx: Ctx, pageId: string, input: LayoutInput): Promise<Layout> {
  await getPage(ctx, pageId);
  const issues: { path: string; message: string }[] = [];
  const monitorIds = new Set<string>();
  const seen = new Set<string>();
  const [existing, existingSections] = await Promise.all([listComponents(ctx.sql, pageId), listSections(ctx.sql, pageId)]);
  const own = new Set([...existing.map((c) => c.id), ...existingSections.map((s) => s.id)]);
  const keepId = (id: string | undefined, prefix: string, path: string) => {
    if (id === undefined) return newId(prefix);
    if (!own.has(id) || seen.has(id)) issues.push({ path, message: `${id} is not a ${prefix === "spc" ? "component" : "section"} of this page (omit id to create one)` });
    seen.add(id);
    return id;
  };
  const sections = input.sections.map((s, i) => ({
    id: keepId(s.id, "sps", `body.sections[${i}].id`),
    name: s.name,
    components: s.components.map((c, j) => {
      const path = `body.sections[${i}].components[${j}]`;
      if ((c.monitor_id === undefined) === (c.tag === undefined)) issues.push({ path, message: "give exactly one of monitor_id and tag" });
      if (c.monitor_id) monitorIds.add(c.monitor_id);
      return { id: keepId(c.id, "spc", `${path}.id`), monitorId: c.monitor_id ?? null, tag: c.tag ?? null, displayName: c.display_name, description: c.description ?? "" };
    }),
  }));
  if (monitorIds.size > 0) {
    const found = await ctx.sql<{ id: string }[]>`select id from monitors where org_id = ${ctx.actor.orgId} and id = any(${[...monitorIds]})`;
    const missing = [...monitorIds].filter((id) => !found.some((f) => f.id === id));
    if (missing.length) issues.push({ path: "body.sections", message: `Unknown monitor(s): ${missing.join(", ")}` });
  }
  if (issues.length) throw validationError(issues);
  await withTx(ctx.sql, (tx) => replaceLayout(tx, ctx.actor.orgId, pageId, { sections }));
  return loadLayout(ctx.sql, pageId);
}
