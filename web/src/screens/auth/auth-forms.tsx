import { useMutation, useQuery } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { api, ApiError, data } from "../../api/client";
import { INVITE_EMAIL_KEY, INVITE_KEY } from "../../components/billing-banner";
import { ErrorMessage, Field, Loading } from "../../components/ui";
import { installationQuery } from "../../lib/installation";
import { Link, useRouter } from "../../lib/router";
import { useSession } from "../../lib/session";

export const form = (e: FormEvent<HTMLFormElement>) => Object.fromEntries(new FormData(e.currentTarget)) as Record<string, string>;

export function AuthFrame({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <main className="auth">
      <h1 className="brand">Watchpost</h1>
      <section className="card">
        <h2>{title}</h2>
        {children}
      </section>
    </main>
  );
}

/**
 * Whether anyone may sign up here (GET /setup's `signup_open`; the app asks it while signed out); undefined while
 * asking. When the question fails the form is offered, and the sign-up's own answer says if it is closed.
 */
function useSignupOpen(): boolean | undefined {
  const setup = useQuery(installationQuery);
  return setup.isError ? true : setup.data?.signup_open;
}

export function SignUp() {
  const session = useSession();
  const { navigate } = useRouter();
  const open = useSignupOpen();
  // An invitation opened from its email link before signing in: the new account joins that organisation.
  const invitation = sessionStorage.getItem(INVITE_KEY);
  // The address the invitation was sent to (from its link): the account must use exactly it.
  const invitedEmail = invitation ? (sessionStorage.getItem(INVITE_EMAIL_KEY) ?? "") : "";
  const signup = useMutation({
    mutationFn: (body: { email: string; password: string; name: string; org_name?: string; invitation_token?: string }) => api.POST("/api/v1/auth/signup", { body }).then(data),
    onSuccess: async (res) => {
      sessionStorage.removeItem(INVITE_KEY);
      sessionStorage.removeItem(INVITE_EMAIL_KEY);
      await session.signedIn(res.org_id);
      navigate("/monitors");
    },
  });
  const issues = signup.error instanceof ApiError ? signup.error.issues : {};
  if (open === undefined && !invitation) return <Loading what="Watchpost" />;
  if (open === false && !invitation) {
    return (
      <AuthFrame title="Sign-up is closed">
        <p>This Watchpost installation takes new accounts by invitation only.</p>
        <p>Ask an administrator of your organisation to invite you: the invitation email has a link that lets you create your account.</p>
        <p>
          Already have an account? <Link to="/signin">Sign in</Link>
        </p>
      </AuthFrame>
    );
  }
  return (
    <AuthFrame title="Create your account">
      {invitation && <p>You are joining the organisation that invited you: use the address the invitation was sent to.</p>}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const f = form(e);
          signup.mutate({
            email: f.email!,
            password: f.password!,
            name: f.name!,
            ...(invitation ? { invitation_token: invitation } : f.org_name ? { org_name: f.org_name } : {}),
          });
        }}
      >
        <Field label="Your name" name="name" required maxLength={120} autoComplete="name" error={issues["body.name"]} />
        <Field
          label="Email"
          name="email"
          type="email"
          required
          autoComplete="email"
          defaultValue={invitedEmail || undefined}
          hint={invitedEmail ? "The address the invitation was sent to" : undefined}
          error={issues["body.email"]}
        />
        <Field label="Password" name="password" type="password" required minLength={10} autoComplete="new-password" hint="At least 10 characters" error={issues["body.password"]} />
        {!invitation && <Field label="Organisation name (optional)" name="org_name" maxLength={120} />}
        <ErrorMessage error={signup.error} />
        <button className="primary" disabled={signup.isPending}>
          {signup.isPending ? "Creating…" : "Create account"}
        </button>
      </form>
      <p>
        Already have an account? <Link to="/signin">Sign in</Link>
      </p>
    </AuthFrame>
  );
}

/** Why the SSO callback sent the browser back (its sso_error parameter), in words. */
const SSO_ERRORS: Record<string, string> = {
  flow_expired: "The single sign-on took too long or started in another browser. Try again.",
  not_configured: "Single sign-on is no longer set up for that organisation.",
  provider_error: "Your identity provider did not complete the sign-in. Try again, or ask your administrator.",
  email_missing: "Your identity provider did not share your email address.",
  domain_not_allowed: "Your email domain may not sign in to this organisation.",
  link_required:
    "An account with your email already exists. Sign in with your password, then link it under Account → Single sign-on (an admin invites it first if it is not a member); after that, Sign in with SSO works.",
  identity_in_use: "Your identity at the provider already signs in as another account.",
  members_quota: "The organisation has no room for another member on its plan. Ask an admin.",
};

/** Single sign-on: by work email (its domain finds the organisation) or the organisation's SSO name. */
function SsoSignIn({ initial, onBack }: { initial: string; onBack: () => void }) {
  const start = useMutation({
    mutationFn: (who: string) => api.POST("/api/v1/auth/sso/start", { body: who.includes("@") ? { email: who } : { org_slug: who.toLowerCase() } }).then(data),
    onSuccess: (res) => window.location.assign(res.redirect_url),
  });
  return (
    <form
      aria-label="Sign in with SSO"
      onSubmit={(e) => {
        e.preventDefault();
        start.mutate(form(e).who!.trim());
      }}
    >
      <Field label="Work email or SSO name" name="who" required defaultValue={initial} autoFocus autoComplete="username" hint="Your organisation's identity provider signs you in" />
      <ErrorMessage error={start.error} />
      <button className="primary" disabled={start.isPending || start.isSuccess}>
        {start.isPending || start.isSuccess ? "Redirecting…" : "Continue with SSO"}
      </button>
      <button type="button" className="link" onClick={onBack}>
        Sign in with a password instead
      </button>
    </form>
  );
}

export function SignIn() {
  const session = useSession();
  const { navigate, search } = useRouter();
  const signupOpen = useSignupOpen();
  const [needsCode, setNeedsCode] = useState(false);
  const [useRecovery, setUseRecovery] = useState(false);
  const [sso, setSso] = useState<{ initial: string } | null>(null);
  const signin = useMutation({
    mutationFn: (body: { email: string; password: string; totp_code?: string; recovery_code?: string }) => api.POST("/api/v1/auth/signin", { body }).then(data),
    onSuccess: async (res) => {
      await session.signedIn(res.org_id);
      navigate("/monitors");
    },
    onError: (err) => {
      // The API answers 401 with details.reason "totp_required" when the account has 2FA and no code came.
      if (err instanceof ApiError && err.details.reason === "totp_required") setNeedsCode(true);
      // ... and 403 "sso_required" when an organisation of the account allows only single sign-on.
      if (err instanceof ApiError && err.details.reason === "sso_required") setSso({ initial: String(err.details.org_slug ?? "") });
    },
  });
  const ssoError = search.get("sso_error");
  // The first step of a sign-in with 2FA is not an error: the form asks for the code, neutrally.
  const codeAsked = signin.error instanceof ApiError && signin.error.details.reason === "totp_required";
  return (
    <AuthFrame title="Sign in">
      {search.get("reset") === "done" && (
        <p role="status" className="notice">
          Your password is changed and every other session signed out. Sign in with the new one.
        </p>
      )}
      {ssoError && (
        <p role="alert" className="error">
          {SSO_ERRORS[ssoError] ?? "Single sign-on failed. Try again."}
        </p>
      )}
      {sso ? (
        <>
          {signin.error instanceof ApiError && signin.error.details.reason === "sso_required" && <p role="note">{signin.error.message}.</p>}
          <SsoSignIn
            initial={sso.initial}
            onBack={() => {
              signin.reset();
              setSso(null);
            }}
          />
        </>
      ) : (
        <>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              const f = form(e);
              const second = f.recovery_code ? { recovery_code: f.recovery_code } : f.totp_code ? { totp_code: f.totp_code } : {};
              signin.mutate({ email: f.email!, password: f.password!, ...second });
            }}
          >
            <Field label="Email" name="email" type="email" required autoComplete="username" />
            <Field label="Password" name="password" type="password" required autoComplete="current-password" />
            {codeAsked && (
              <p role="status" className="notice" data-testid="totp-prompt">
                {useRecovery ? "Two-factor authentication is on for this account: enter one of your recovery codes to finish signing in." : "Two-factor authentication is on for this account: enter the code from your authenticator app to finish signing in."}
              </p>
            )}
            {needsCode && !useRecovery && <Field label="Authentication code" name="totp_code" inputMode="numeric" pattern="[0-9 ]{6,8}" autoComplete="one-time-code" autoFocus required hint="The 6-digit code from your authenticator app" />}
            {needsCode && useRecovery && <Field label="Recovery code" name="recovery_code" autoComplete="off" autoFocus required maxLength={40} hint="One of the recovery codes you saved when turning on 2FA; each works once" />}
            {needsCode && (
              <button type="button" className="link" onClick={() => setUseRecovery(!useRecovery)}>
                {useRecovery ? "Use a code from your app instead" : "Lost your app? Use a recovery code"}
              </button>
            )}
            {!codeAsked && <ErrorMessage error={signin.error} onSignInForm />}
            <button className="primary" disabled={signin.isPending}>
              {signin.isPending ? "Signing in…" : "Sign in"}
            </button>
          </form>
          <button type="button" onClick={() => setSso({ initial: "" })}>
            Sign in with SSO
          </button>
        </>
      )}
      <p>
        <Link to="/password-reset">Forgot your password?</Link>
        {(signupOpen || sessionStorage.getItem(INVITE_KEY)) && (
          <>
            {" "}
            · <Link to="/signup">Create an account</Link>
          </>
        )}
      </p>
    </AuthFrame>
  );
}

/** Where the SSO callback lands with the new session: select its organisation, then open the dashboard. */
export function SsoComplete() {
  const session = useSession();
  const { navigate, search } = useRouter();
  const org = search.get("org");
  useEffect(() => {
    void session.signedIn(org).then(() => navigate("/monitors"));
    // once, on arrival (the organisation comes from the callback)
  }, []);
  return <Loading what="your organisation" />;
}

export function PasswordReset() {
  const { search, navigate } = useRouter();
  const token = search.get("token");
  const request = useMutation({ mutationFn: (email: string) => api.POST("/api/v1/auth/password-reset/request", { body: { email } }) });
  const confirm = useMutation({
    mutationFn: (password: string) => api.POST("/api/v1/auth/password-reset/confirm", { body: { token: token!, password } }),
    onSuccess: () => navigate("/signin?reset=done"),
  });
  if (token)
    return (
      <AuthFrame title="Choose a new password">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            confirm.mutate(form(e).password!);
          }}
        >
          <Field label="New password" name="password" type="password" required minLength={10} autoComplete="new-password" hint="At least 10 characters; every session is signed out" />
          <ErrorMessage error={confirm.error} />
          <button className="primary" disabled={confirm.isPending}>
            Set password
          </button>
        </form>
      </AuthFrame>
    );
  return (
    <AuthFrame title="Reset your password">
      {request.isSuccess ? (
        <p role="status">If an account uses that address, we have emailed it a link valid for one hour.</p>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            request.mutate(form(e).email!);
          }}
        >
          <Field label="Email" name="email" type="email" required autoComplete="email" />
          <ErrorMessage error={request.error} />
          <button className="primary" disabled={request.isPending}>
            Email me a link
          </button>
        </form>
      )}
      <p>
        <Link to="/signin">Back to sign in</Link>
      </p>
    </AuthFrame>
  );
}
