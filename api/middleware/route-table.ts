/** What the edge and the error handler need to know about the routes: methods per path, and who may call. */
export interface RouteTable {
  /** Methods the path takes (HEAD with GET); empty for a path no route serves. */
  allowedMethods(path: string): string[];
  /** Whether the route needs a caller (it has a `requires` guard): anonymous requests get 401 before anything reads the body. */
  needsCaller(method: string, path: string): boolean;
  /** Whether the route that serves the request declares no query parameters at all (so any is unknown); false when no route matches. */
  takesNoQuery(method: string, path: string): boolean;
  /** Whether the route that serves the request reads a JSON body (it declares a body schema and keeps the JSON parser). */
  takesJsonBody(method: string, path: string): boolean;
}

export interface RouteLike {
  method: string;
  path: string;
  hooks?: { transform?: unknown; query?: unknown; body?: unknown; parse?: unknown };
}

/** The auth macro marks its hook with the requirement, so the table can find guarded routes. */
export const REQUIRES_MARK = "requires";

const escape = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
const markOf = (fn: unknown): string | undefined => (typeof fn === "function" && REQUIRES_MARK in fn ? String((fn as unknown as Record<string, unknown>)[REQUIRES_MARK]) : undefined);

/** What a route's `requires` guard asks of the caller (a permission, "user" or "member"); undefined for a route without one. */
export function requirementOf(r: RouteLike): string | undefined {
  const hooks = Array.isArray(r.hooks?.transform) ? (r.hooks.transform as unknown[]) : [];
  for (const h of hooks) {
    const need = markOf(h) ?? markOf((h as { fn?: unknown } | null)?.fn);
    if (need) return need;
  }
  return undefined;
}
const guarded = (r: RouteLike) => requirementOf(r) !== undefined;

/**
 * Built lazily from the app's route list. Catch-all routes (the dashboard's `/*`) are left out: they
 * would make every unknown path "allow GET", and an unknown path is 404, not 405.
 */
export function routeTableOf(routes: () => RouteLike[]): RouteTable {
  let table: { re: RegExp; method: string; guarded: boolean; params: number; query: boolean; json: boolean }[] | null = null;
  const matches = (path: string) =>
    (table ??= routes()
      .filter((r) => !r.path.includes("*") && r.method !== "ALL")
      .map((r) => ({
        re: new RegExp(`^${r.path.split("/").map((seg) => (seg.startsWith(":") ? "[^/]+" : escape(seg))).join("/")}/?$`),
        method: r.method,
        guarded: guarded(r),
        params: r.path.split("/").filter((seg) => seg.startsWith(":")).length,
        query: r.hooks?.query !== undefined,
        // `parse: "none"` routes (heartbeat pings, one-click unsubscribe) read their body themselves, whatever its type.
        json: r.hooks?.body !== undefined && !JSON.stringify(r.hooks?.parse ?? null).includes('"none"'),
      }))).filter((r) => r.re.test(path));
  // The route the router picks: static segments beat parameters.
  const best = (method: string, path: string) =>
    matches(path)
      .filter((r) => r.method === method || (method === "HEAD" && r.method === "GET"))
      .sort((a, b) => a.params - b.params)[0];
  return {
    allowedMethods(path) {
      const methods = new Set(matches(path).map((r) => r.method));
      if (methods.has("GET")) methods.add("HEAD");
      return [...methods].sort();
    },
    needsCaller(method, path) {
      const all = matches(path).filter((r) => r.method === method);
      // A static segment beats a parameter (`/monitors/bulk` before `/monitors/:id`); guarded only when every match is.
      return all.length > 0 && all.every((r) => r.guarded);
    },
    takesNoQuery(method, path) {
      const route = best(method, path);
      return route !== undefined && !route.query;
    },
    takesJsonBody(method, path) {
      return best(method, path)?.json ?? false;
    },
  };
}
