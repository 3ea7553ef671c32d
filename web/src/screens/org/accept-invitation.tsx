import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, data } from "../../api/client";
import { INVITE_EMAIL_KEY, INVITE_KEY } from "../../components/billing-banner";
import { Layout } from "../../components/layout";
import { ErrorMessage, Loading } from "../../components/ui";
import { Link, useRouter } from "../../lib/router";
import { useSession } from "../../lib/session";

/**
 * The emailed link `/invitations/accept?token=…`. Signed in: accept it here. Signed out: the token is
 * kept for this tab while the person signs in or creates an account, and the app offers it afterwards.
 */
export function AcceptInvitationScreen() {
  const session = useSession();
  const { search } = useRouter();
  const token = search.get("token") ?? sessionStorage.getItem(INVITE_KEY) ?? "";
  if (session.loading) return <Loading what="Watchpost" />;
  if (!session.user) {
    if (token) sessionStorage.setItem(INVITE_KEY, token);
    // The link names the invited address (the account must use exactly it): the sign-up form fills it in.
    const email = search.get("email")?.trim() || (search.get("token") ? "" : sessionStorage.getItem(INVITE_EMAIL_KEY)) || "";
    if (search.get("token")) {
      if (email) sessionStorage.setItem(INVITE_EMAIL_KEY, email);
      else sessionStorage.removeItem(INVITE_EMAIL_KEY);
    }
    return (
      <main className="auth">
        <h1 className="brand">Watchpost</h1>
        <section className="card" aria-labelledby="invite-h">
          <h2 id="invite-h">You are invited</h2>
          <p>
            Someone invited you to their organisation on Watchpost. Sign in and accept it from the banner, or create an account with the address the invitation was sent to
            {email ? (
              <>
                {" "}
                (<strong>{email}</strong>)
              </>
            ) : null}
            : it joins their organisation.
          </p>
          <p>
            <Link to="/signin" className="button primary">
              Sign in
            </Link>{" "}
            <Link to="/signup" className="button">
              Create an account
            </Link>
          </p>
        </section>
      </main>
    );
  }
  return (
    <Layout>
      <AcceptInvitation token={token} />
    </Layout>
  );
}

function AcceptInvitation({ token }: { token: string }) {
  const qc = useQueryClient();
  const session = useSession();
  const { navigate } = useRouter();
  const accept = useMutation({
    mutationFn: () => api.POST("/api/v1/invitations/accept", { body: { token } }).then(data),
    onSuccess: async (inv) => {
      sessionStorage.removeItem(INVITE_KEY);
      await qc.invalidateQueries({ queryKey: ["session"] });
      session.switchOrg(inv.org_id);
      navigate("/monitors");
    },
  });
  return (
    <section aria-labelledby="accept-h">
      <h1 id="accept-h">Join an organisation</h1>
      {token ? (
        <>
          <p>Accept the invitation to join its organisation as {session.user?.email}. You keep your own organisations and switch between them at the top.</p>
          <ErrorMessage error={accept.error} />
          <button className="primary" onClick={() => accept.mutate()} disabled={accept.isPending}>
            Accept invitation
          </button>
        </>
      ) : (
        <p>This link has no invitation token. Open the link from the invitation email again.</p>
      )}
    </section>
  );
}
