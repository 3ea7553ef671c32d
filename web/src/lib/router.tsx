import { createContext, useContext, useEffect, useRef, useState, type AnchorHTMLAttributes, type ReactNode } from "react";

const RouterContext = createContext<{ path: string; search: URLSearchParams; navigate: (to: string) => void }>({
  path: "/",
  search: new URLSearchParams(),
  navigate: () => {},
});

/**
 * Asked before every in-app navigation (links, `navigate`, the back and forward buttons). A guard
 * that answers false keeps the user where they are; it may call `proceed` later to go after all.
 */
type LeaveGuard = (proceed: () => void) => boolean;
const leaveGuards = new Set<LeaveGuard>();

/** Registers a guard; returns the function that removes it. */
export function addLeaveGuard(guard: LeaveGuard): () => void {
  leaveGuards.add(guard);
  return () => leaveGuards.delete(guard);
}

const mayLeave = (proceed: () => void) => [...leaveGuards].every((g) => g(proceed));

/** A small history router: the API serves index.html for every non-API path. */
export function Router({ children }: { children: ReactNode }) {
  const [loc, setLoc] = useState(() => location.pathname + location.search);
  const shown = useRef(loc);
  const show = (to: string) => {
    shown.current = to;
    setLoc(to);
  };
  useEffect(() => {
    const onPop = () => {
      const target = location.pathname + location.search;
      const here = shown.current;
      const go = () => {
        history.pushState(null, "", target);
        show(target);
      };
      if (mayLeave(go)) show(target);
      // The address bar moved already: put it back while the guard asks.
      else history.pushState(null, "", here);
    };
    addEventListener("popstate", onPop);
    return () => removeEventListener("popstate", onPop);
  }, []);
  const go = (to: string) => {
    history.pushState(null, "", to);
    show(to);
    scrollTo(0, 0);
  };
  const navigate = (to: string) => {
    if (mayLeave(() => go(to))) go(to);
  };
  const url = new URL(loc, location.origin);
  return <RouterContext.Provider value={{ path: url.pathname, search: url.searchParams, navigate }}>{children}</RouterContext.Provider>;
}

export const useRouter = () => useContext(RouterContext);

export function Link({ to, ...rest }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const { navigate } = useRouter();
  return (
    <a
      href={to}
      {...rest}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        navigate(to);
      }}
    />
  );
}

/** Matches `/monitors/:id` style patterns; returns the params or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split("/");
  const a = path.replace(/\/$/, "").split("/");
  if (p.length !== a.length) return null;
  const out: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i]!.startsWith(":")) out[p[i]!.slice(1)] = decodeURIComponent(a[i]!);
    else if (p[i] !== a[i]) return null;
  }
  return out;
}
