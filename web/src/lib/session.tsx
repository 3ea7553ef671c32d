import { useQuery, useQueryClient } from "@tanstack/react-query";
import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from "react";
import { api, ApiError, csrfToken, data, ORG_KEY, selectedOrg } from "../api/client";

type User = { id: string; email: string; name: string; two_factor_enabled: boolean };
type Org = { id: string; name: string; plan: string; role: string; default: boolean; single_sign_on?: boolean };

interface Session {
  user: User | null;
  orgs: Org[];
  orgId: string | null;
  loading: boolean;
  /** Why the session could not be checked (anything but a 401, which means signed out): the app says so instead of signing out. */
  error: Error | null;
  retry(): void;
  switchOrg(id: string): void;
  signedIn(orgId: string | null): Promise<void>;
  signOut(): Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const qc = useQueryClient();
  // Held in state (and mirrored to localStorage for the request headers) so a switch re-renders at once.
  const [stored, setStored] = useState(selectedOrg);
  const me = useQuery({
    queryKey: ["session"],
    queryFn: async () => {
      // No wp_csrf cookie means no session: skip the request rather than log a 401 in the console.
      if (!csrfToken()) return { user: null, orgs: [] };
      try {
        const [user, orgs] = await Promise.all([api.GET("/api/v1/user").then(data), api.GET("/api/v1/orgs", { params: { query: { limit: 100 } } }).then(data)]);
        return { user: user as unknown as User, orgs: orgs.data as Org[] };
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return { user: null, orgs: [] };
        throw err;
      }
    },
    // Only a 401 means signed out (handled above); a 5xx or a dropped connection is tried again (429s wait in the client).
    retry: (n, err) => n < 3 && !(err instanceof ApiError && err.status < 500 && err.status !== 429),
    retryDelay: (n) => Math.min(8000, 1000 * 2 ** n),
    staleTime: 60_000,
  });
  // Signed out (or the session ended): every other query is reset, so nobody who signs in next on this tab sees what
  // was cached, and the signed-out screen's own (the setup probe, cached when the installation was new) asks again.
  // Done in an effect, once the signed-in screens are gone: a query dropped while its screen is still mounted is
  // fetched again at that screen's next render, now without a session (a burst of 401s); a reset one is refetched
  // only if a screen shows it, and a removed one that a screen shows is left pending for good.
  const user = me.data?.user ?? null;
  const wasSignedIn = useRef(false);
  useEffect(() => {
    if (user) wasSignedIn.current = true;
    else if (wasSignedIn.current && me.data) {
      wasSignedIn.current = false;
      void qc.resetQueries({ predicate: (q) => q.queryKey[0] !== "session" });
    }
  }, [user, me.data, qc]);
  const orgs = me.data?.orgs ?? [];
  const orgId = orgs.find((o) => o.id === stored)?.id ?? orgs.find((o) => o.default)?.id ?? orgs[0]?.id ?? null;
  if (orgId && orgId !== stored) localStorage.setItem(ORG_KEY, orgId);

  const value: Session = {
    user,
    orgs,
    orgId,
    loading: me.isPending,
    error: me.data ? null : me.error,
    retry: () => void me.refetch(),
    switchOrg(id) {
      localStorage.setItem(ORG_KEY, id);
      qc.removeQueries({ predicate: (q) => q.queryKey[0] !== "session" });
      setStored(id);
    },
    async signedIn(id) {
      if (id) localStorage.setItem(ORG_KEY, id);
      setStored(id);
      await qc.invalidateQueries({ queryKey: ["session"] });
    },
    async signOut() {
      await api.POST("/api/v1/auth/signout").catch(() => {});
      localStorage.removeItem(ORG_KEY);
      setStored(null);
      // Signed out at once: the signed-in screens unmount, and the effect above then resets the queries.
      qc.setQueryData(["session"], { user: null, orgs: [] });
    },
  };
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error("useSession outside SessionProvider");
  return s;
}
