import { useMutation } from "@tanstack/react-query";
import { useId, useState } from "react";
import { api, ApiError, data } from "../../api/client";
import { useLeaveWarning } from "../../components/unsaved-changes";
import { CopyButton } from "../../components/widgets";
import { ErrorMessage, Field } from "../../components/ui";

/** The text file the download holds: what the codes are for, for whom, and when they were made. */
export function recoveryCodesText(codes: string[], account: string, made = new Date()): string {
  return [
    "Watchpost recovery codes",
    `Account: ${account}`,
    `Generated: ${made.toISOString().slice(0, 16).replace("T", " ")} UTC`,
    "",
    "Each code works once, in place of a code from your authenticator app.",
    "Generating new codes makes all of these stop working.",
    "",
    ...codes,
    "",
  ].join("\n");
}

/** Saves the codes as a text file: an object URL on a temporary link, released once the download has started. */
function download(codes: string[], account: string) {
  const url = URL.createObjectURL(new Blob([recoveryCodesText(codes, account)], { type: "text/plain;charset=utf-8" }));
  const a = Object.assign(document.createElement("a"), { href: url, download: "watchpost-recovery-codes.txt" });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * The ten recovery codes the API returns once (on enabling 2FA or regenerating): copy or download
 * them, then say they are saved. Leaving before that asks first, since nothing shows them again.
 */
export function RecoveryCodesOnce({ codes, account, renewed = false, onDone }: { codes: string[]; account: string; renewed?: boolean; onDone: () => void }) {
  const id = useId();
  const [saved, setSaved] = useState(false);
  const [kept, setKept] = useState("");
  const leaveWarning = useLeaveWarning(!saved, {
    title: "Leave before saving your recovery codes?",
    body: <p>They are not shown again. Without them, losing your phone can lock you out of your account.</p>,
    stay: "Stay and save them",
    leave: "Leave anyway",
  });
  return (
    <div className="secret card" role="region" aria-labelledby={id}>
      {leaveWarning}
      <h3 id={id}>{renewed ? "Your new recovery codes" : "Your recovery codes"}</h3>
      <p>
        <strong>Save these now: they are shown only once.</strong> Each one signs you in once if you lose your authenticator app.
        {renewed && " Your previous codes no longer work."}
      </p>
      <ul className="recovery-codes" data-testid="recovery-codes">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
      <div className="row">
        <CopyButton text={codes.join("\n")} what="recovery codes" label="Copy all" />
        <button
          type="button"
          onClick={() => {
            download(codes, account);
            setKept("Downloaded watchpost-recovery-codes.txt");
          }}
        >
          Download .txt
        </button>
        <span role="status" className="muted">
          {kept}
        </span>
      </div>
      <label className="saved-check">
        <input type="checkbox" checked={saved} onChange={(e) => setSaved(e.target.checked)} />
        <span>I have saved these codes somewhere I can reach without this device (a password manager, or printed).</span>
      </label>
      <button type="button" className="primary" disabled={!saved} onClick={onDone}>
        Done
      </button>
    </div>
  );
}

/** The message in words for a password the API refused, shown next to the field. */
const passwordIssue = (error: unknown) => (error instanceof ApiError && error.issues["body.password"] ? "That password is not correct. It is the one you sign in with." : undefined);

/** New codes after the password; the old ones stop working. */
export function RegenerateRecoveryCodes({ onCodes }: { onCodes: (codes: string[]) => void }) {
  const [missing, setMissing] = useState(false);
  const regenerate = useMutation({
    mutationFn: (password: string) => api.POST("/api/v1/user/2fa/recovery-codes", { body: { password } }).then(data),
    onSuccess: (r) => onCodes(r.recovery_codes),
  });
  const fieldError = missing ? "Enter your password to generate new codes." : passwordIssue(regenerate.error);
  return (
    <form
      className="stack card"
      aria-label="Generate new recovery codes"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const password = String(new FormData(e.currentTarget).get("recovery_password") ?? "");
        setMissing(!password);
        if (password) regenerate.mutate(password);
        else regenerate.reset();
      }}
    >
      <h3>Recovery codes</h3>
      <p>Lost your recovery codes, or used some? New ones replace them all: the old codes stop working at once.</p>
      <Field label="Your password" name="recovery_password" type="password" required autoComplete="current-password" error={fieldError} />
      {!fieldError && <ErrorMessage error={regenerate.error} />}
      <div className="row">
        <button disabled={regenerate.isPending}>Generate new recovery codes</button>
      </div>
    </form>
  );
}
