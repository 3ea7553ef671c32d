import { useMutation } from "@tanstack/react-query";
import { api, data } from "../../api/client";
import { ErrorMessage } from "../../components/ui";
import { useRouter } from "../../lib/router";
import { useSession } from "../../lib/session";

/**
 * Linking the account to its organisation's single sign-on. A provider never signs in as an existing account by its
 * email alone (its admins could assert anyone's), so the account links itself here, signed in with its password;
 * after the provider's sign-in the browser comes back to /account?sso=linked.
 */
export function SingleSignOnLink() {
  const { orgs, orgId } = useSession();
  const { search } = useRouter();
  const org = orgs.find((o) => o.id === orgId);
  const link = useMutation({
    mutationFn: () => api.POST("/api/v1/auth/sso/link").then(data),
    onSuccess: (res) => window.location.assign(res.redirect_url),
  });
  if (!org?.single_sign_on) return null;
  return (
    <section aria-labelledby="sso-link-h" className="stack">
      <h2 id="sso-link-h">Single sign-on</h2>
      {search.get("sso") === "linked" ? (
        <p role="status">Linked: you can now sign in to {org.name} with single sign-on.</p>
      ) : (
        <p className="muted">
          {org.name} signs in with single sign-on. Link your account once, signed in as you are now, and then use Sign in with SSO. A session opened by single
          sign-on acts in {org.name} only.
        </p>
      )}
      <ErrorMessage error={link.error} />
      <div className="row">
        <button type="button" onClick={() => link.mutate()} disabled={link.isPending}>
          Link my account to single sign-on
        </button>
      </div>
    </section>
  );
}
