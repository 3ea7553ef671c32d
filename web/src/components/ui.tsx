import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes } from "react";
import { ApiError } from "../api/client";
import { FormIssuesError, issueLabel } from "../lib/form-issues";
import { Link } from "../lib/router";

/** Field issues of a failed save, from the API (VALIDATION_ERROR) or the form's own checks, keyed by path. */
export const issuesOf = (error: unknown): Record<string, string> => (error instanceof ApiError || error instanceof FormIssuesError ? error.issues : {});

/**
 * What the person can do about an error, by its code (the message itself comes from the API). `onSignInForm`: the
 * error answers the sign-in form itself, so a refused sign-in (wrong password) offers no link back to that form.
 */
export function nextStep(error: unknown, { onSignInForm = false } = {}): ReactNode {
  if (error instanceof TypeError) return "The server could not be reached; check the connection and try again.";
  if (!(error instanceof ApiError)) return null;
  switch (error.code) {
    case "RATE_LIMIT_EXCEEDED":
      return `Try again in ${Number(error.details.retryAfterSeconds ?? 60)} s.`;
    case "ENTITLEMENT_REQUIRED":
      return (
        <>
          Your plan does not include this{error.details.entitlement ? ` (${String(error.details.entitlement)})` : ""}. <Link to="/billing">See plans and add-ons</Link>.
        </>
      );
    case "PERMISSION_DENIED":
      // The organisation's 2FA policy (or the caller's own 2FA, to turn that policy on) is set up under Account.
      if (error.details.reason === "two_factor_required" || error.details.reason === "own_two_factor_required") {
        return <Link to="/account/security">Set up two-factor authentication</Link>;
      }
      // Any other reason (CSRF, not a member, owner only…) is not a missing role permission; and a message that
      // already says who can ("Only an owner can …") needs no second, contradicting sentence.
      if (error.details.reason || /\bcan\b/i.test(error.message)) return null;
      return "Your role in this organisation does not allow it; an owner or admin can.";
    case "UNAUTHENTICATED":
      // The first step of a sign-in with 2FA: nothing failed, the form asks for the code.
      if (error.details.reason === "totp_required" || onSignInForm) return null;
      return <Link to="/signin">Sign in again</Link>;
    default:
      return error.status >= 500 ? "Something went wrong on our side; it is safe to try again." : null;
  }
}

/** The API's own message (and the field issues of a VALIDATION_ERROR), read out to screen readers. */
/** `labels`: the form's field labels by issue path (`body.config.url`), so each issue is named as the form names it. */
/** `onSignInForm`: shown by the sign-in form (see nextStep). */
export function ErrorMessage({ error, labels, onSignInForm }: { error: unknown; labels?: Record<string, string>; onSignInForm?: boolean }) {
  if (!error) return null;
  const message = error instanceof TypeError ? "Network error" : error instanceof Error ? error.message : String(error);
  const issues = Object.entries(issuesOf(error));
  const next = nextStep(error, { onSignInForm });
  return (
    <div role="alert" className="error">
      <strong>{message}</strong>
      {next && <div className="next-step">{next}</div>}
      {issues.length > 0 && (
        <ul>
          {issues.map(([path, msg]) => (
            <li key={path}>
              {/* "URL: must be …": the field's own line beside it reads "URL must be …". */}
              <strong>{issueLabel(path, labels)}</strong>: {msg}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** "is required" reads as "Name is required"; a message that is a sentence already stays as it is. */
export const withLabel = (label: string, message: string) => (/^[a-z]/.test(message) ? `${label.replace(/ \(optional\)$/, "")} ${message}` : message);

export function Field({ label, hint, error, ...input }: { label: string; hint?: string; error?: string } & InputHTMLAttributes<HTMLInputElement>) {
  const id = input.id ?? `f-${input.name ?? label.replace(/\W+/g, "-").toLowerCase()}`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} aria-invalid={error ? true : undefined} aria-describedby={[hint && `${id}-hint`, error && `${id}-err`].filter(Boolean).join(" ") || undefined} {...input} />
      {hint && (
        <small id={`${id}-hint`} className="muted">
          {hint}
        </small>
      )}
      {error && (
        <small id={`${id}-err`} className="field-error">
          {withLabel(label, error)}
        </small>
      )}
    </div>
  );
}

export function Select({ label, children, ...rest }: { label: string; children: ReactNode } & SelectHTMLAttributes<HTMLSelectElement>) {
  const id = rest.id ?? `s-${label.replace(/\W+/g, "-").toLowerCase()}`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} {...rest}>
        {children}
      </select>
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function EmptyState({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="empty">
      <h2>{title}</h2>
      {children}
    </section>
  );
}

export function StatusBadge({ status, paused }: { status: string; paused?: boolean }) {
  const s = paused ? "paused" : status;
  return (
    <span className={`badge badge-${s}`} data-status={s}>
      {s}
    </span>
  );
}

export const fmtMs = (v: unknown) => (v == null ? "—" : `${Math.round(Number(v))} ms`);
export { fmtPct, fmtTime } from "./format";
