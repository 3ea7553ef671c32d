import type { ReactNode } from "react";
import { Loading } from "../../components/ui";
import { Link } from "../../lib/router";
import { useMyRole } from "./use-permissions";

/**
 * A screen only a role holding `permission` can use (the API answers 403 to everyone else): others read why,
 * rather than fill in a form that is then refused.
 */
export function RequirePermission({ permission, what, back, children }: { permission: string; what: string; back: { to: string; label: string }; children: ReactNode }) {
  const { can, loading } = useMyRole();
  if (loading) return <Loading what="your role" />;
  if (can(permission)) return <>{children}</>;
  return (
    <section aria-labelledby="not-allowed-h">
      <h1 id="not-allowed-h">Not available with your role</h1>
      <p>
        Your role in this organisation cannot {what}; an owner or admin can change your role under Organisation.
      </p>
      <p>
        <Link to={back.to}>{back.label}</Link>
      </p>
    </section>
  );
}
