import { useQuery } from "@tanstack/react-query";
import { Suspense, type ReactNode } from "react";
import { Layout } from "./components/layout";
import { ErrorMessage, Loading } from "./components/ui";
import { Link, match, useRouter } from "./lib/router";
import { useSession } from "./lib/session";
import { alertScreens } from "./screens/alerts/routes";
import { PasswordReset, SignIn, SignUp, SsoComplete } from "./screens/auth/auth-forms";
import { Setup } from "./screens/auth/setup-form";
import { installationQuery } from "./lib/installation";
import { monitorScreens } from "./screens/monitors/routes";
import { accountScreens } from "./screens/account/routes";
import { billingScreens } from "./screens/billing/routes";
import { orgScreens } from "./screens/org/routes";
import { runnerScreens } from "./screens/runners/routes";
import { statusPageScreens } from "./screens/status-pages/routes";
import { reportScreens } from "./screens/reports/routes";
import { AcceptInvitationScreen } from "./screens/org/accept-invitation";

const PUBLIC: Partial<Record<string, () => ReactNode>> = { "/signin": SignIn, "/signup": SignUp, "/password-reset": PasswordReset };
/** Screens for signed-in and signed-out visitors alike (they render their own frame). */
const EITHER: Partial<Record<string, () => ReactNode>> = { "/invitations/accept": AcceptInvitationScreen, "/sso/complete": SsoComplete };

/** Signed-in screens, first match wins (`/monitors/new` before `/monitors/:id`). */
const SCREENS: [string, (p: Record<string, string>) => ReactNode][] = [
  ...monitorScreens,
  ...alertScreens,
  ...statusPageScreens,
  ...reportScreens,
  ...runnerScreens,
  ...billingScreens,
  ...orgScreens,
  ...accountScreens,
];

/** Every signed-in route pattern, in match order: the phone-width test and `scripts/screens.ts` visit each one. */
export const SCREEN_PATTERNS = SCREENS.map(([pattern]) => pattern);

function SessionUnknown({ error, retry }: { error: Error; retry(): void }) {
  return (
    <main id="main" className="auth">
      <h1>Watchpost cannot be reached</h1>
      <ErrorMessage error={error} />
      <p>You are still signed in; this page checks again when you ask.</p>
      <button className="primary" onClick={retry}>
        Try again
      </button>
    </main>
  );
}

export function App() {
  const session = useSession();
  const { path, navigate } = useRouter();
  const signedOut = !session.loading && !session.user;
  // A fresh installation (no organisation yet) opens on its setup screen instead of sign-in.
  const setup = useQuery({ ...installationQuery, enabled: signedOut });
  if (session.loading || (signedOut && !session.error && setup.isPending)) return <Loading what="Watchpost" />;
  // The session could not be checked (the server is down or refuses for a while): say so, never sign out.
  if (session.error && !EITHER[path] && !PUBLIC[path]) return <SessionUnknown error={session.error} retry={session.retry} />;
  const Either = EITHER[path];
  if (Either) return <Either />;
  const Public = PUBLIC[path];
  if (!session.user) {
    if (Public) return <Public />;
    // Sign-up and sign-in stay where they are (the hosted mode uses them); every other path goes to setup.
    if (setup.data?.needed) {
      if (path === "/setup") return <Setup />;
      queueMicrotask(() => navigate("/setup"));
      return null;
    }
    queueMicrotask(() => navigate("/signin"));
    return null;
  }
  if (Public || path === "/" || path === "/setup") {
    queueMicrotask(() => navigate("/monitors"));
    return null;
  }
  for (const [pattern, render] of SCREENS) {
    const params = match(pattern, path);
    // Keyed by organisation: switching remounts every screen, so nothing shows the old one's data.
    // Some screens are loaded on first use (React.lazy): the layout stays while they arrive.
    if (params)
      return (
        <Layout key={session.orgId}>
          <Suspense fallback={<Loading what="page" />}>{render(params)}</Suspense>
        </Layout>
      );
  }
  return (
    <Layout>
      <section className="not-found" aria-labelledby="not-found-h">
        <h1 id="not-found-h">Page not found</h1>
        <p>
          There is no page at <code>{path}</code>. It may have been moved or deleted, or the link may be mistyped.
        </p>
        <p className="row">
          <Link to="/monitors" className="button primary">
            Back to monitors
          </Link>
          {history.length > 1 && (
            <button type="button" onClick={() => history.back()}>
              Go back
            </button>
          )}
        </p>
      </section>
    </Layout>
  );
}
