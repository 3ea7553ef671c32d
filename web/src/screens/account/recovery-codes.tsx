import { useMutation } from "@tanstack/react-query";
import { useId } from "react";
import { api, data } from "../../api/client";
import { CopyButton } from "../../components/widgets";
import { ErrorMessage, Field } from "../../components/ui";

/** Saves the codes as a text file: an object URL on a temporary link, released straight after. */
function download(codes: string[]) {
  const text = `Watchpost recovery codes (each works once, in place of a code from your app)\n\n${codes.join("\n")}\n`;
  const url = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
  const a = Object.assign(document.createElement("a"), { href: url, download: "watchpost-recovery-codes.txt" });
  a.click();
  URL.revokeObjectURL(url);
}

/** The ten recovery codes the API returns once (on enabling 2FA or regenerating): copy or download them now. */
export function RecoveryCodesOnce({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const id = useId();
  return (
    <div className="secret card" role="region" aria-labelledby={id}>
      <h3 id={id}>Recovery codes</h3>
      <p>
        <strong>Save these now: they are shown only once.</strong> Each one signs you in once if you lose your authenticator app.
      </p>
      <ul className="recovery-codes" data-testid="recovery-codes">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
      <div className="row">
        <CopyButton text={codes.join("\n")} what="recovery codes" />
        <button type="button" onClick={() => download(codes)}>
          Download
        </button>
        <button type="button" onClick={onDone}>
          I have saved them
        </button>
      </div>
    </div>
  );
}

/** New codes after the password; the old ones stop working. */
export function RegenerateRecoveryCodes({ onCodes }: { onCodes: (codes: string[]) => void }) {
  const regenerate = useMutation({
    mutationFn: (password: string) => api.POST("/api/v1/user/2fa/recovery-codes", { body: { password } }).then(data),
    onSuccess: (r) => onCodes(r.recovery_codes),
  });
  return (
    <form
      className="stack card"
      aria-label="Generate new recovery codes"
      onSubmit={(e) => {
        e.preventDefault();
        regenerate.mutate(String(new FormData(e.currentTarget).get("recovery_password")));
      }}
    >
      <p>Lost your recovery codes, or used some? New ones replace them all.</p>
      <Field label="Your password" name="recovery_password" type="password" required autoComplete="current-password" />
      <ErrorMessage error={regenerate.error} />
      <button disabled={regenerate.isPending}>Generate new recovery codes</button>
    </form>
  );
}
