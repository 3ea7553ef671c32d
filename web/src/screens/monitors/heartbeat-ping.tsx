import { useId } from "react";
import { CopyButton, Snippet } from "../../components/widgets";
import { heartbeatSnippets } from "./heartbeat-snippets";

/** A heartbeat monitor's ping URLs with copy buttons, and the cron entry, wrapper and output-sending lines for its job. */
export function HeartbeatPing({ url, config }: { url: string; config: Record<string, unknown> }) {
  const id = useId();
  const s = heartbeatSnippets(url, config);
  // A schedule comes as a cron file of its own (it names its zone); a period as one crontab line.
  const cronWhat = typeof config.schedule === "string" && config.schedule ? "cron file" : "crontab line";
  return (
    <section className="card heartbeat-ping" aria-labelledby={id}>
      <h2 id={id}>Ping this URL from your job</h2>
      <p>
        GET or POST the success URL when the job succeeds. Ping the start URL when it begins (the run time is measured) and the failure URL when it fails (down at once). Or add
        the job's exit status to the URL, as the lines below do: <code>…/0</code> is a success, any other status from 1 to 255 a failure.
      </p>
      <dl className="ping-urls">
        {s.urls.map((u) => (
          <div key={u.label} className="pair">
            <dt>{u.label[0]!.toUpperCase() + u.label.slice(1)}</dt>
            <dd>
              <code className="copyable" data-testid={`ping-url-${u.label}`}>
                {u.url}
              </code>
              <CopyButton text={u.url} what={`${u.label} URL`} />
            </dd>
          </div>
        ))}
      </dl>
      <h3>{cronWhat[0]!.toUpperCase() + cronWhat.slice(1)}</h3>
      <Snippet code={s.crontab} what={cronWhat} testId="ping-crontab" />
      <details className="more">
        <summary>More ways to ping</summary>
        <h3>Start, then the exit status, from a script</h3>
        <Snippet code={s.wrapper} what="wrapper script" testId="ping-wrapper" />
        <h3>Send the job's output with the ping</h3>
        <p className="muted">The first 10 KB of a POST body is kept with the result.</p>
        <Snippet code={s.withOutput} what="output-sending lines" testId="ping-output" />
      </details>
    </section>
  );
}
