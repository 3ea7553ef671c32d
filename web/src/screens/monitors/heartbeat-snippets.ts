/** The ping URLs of a heartbeat monitor and the shell lines a job uses to call them. */

export interface HeartbeatSnippets {
  urls: { label: string; url: string }[];
  /**
   * For cron: a schedule as configured becomes an /etc/cron.d file of its own that names its zone; a period
   * becomes one crontab line (a period does not depend on the zone).
   */
  crontab: string;
  /** A shell wrapper: start, run, then the job's exit status (0 success, else failure). */
  wrapper: string;
  /** The job's output sent as the ping's body (kept with the result), to the URL of the job's exit status. */
  withOutput: string;
}

const CURL = "curl -fsS -m 10 --retry 3";

/** `*​/5 * * * *` for 300 s; hourly and daily periods at minute 0; null when cron cannot say it. */
export function cronForPeriod(seconds: number): string | null {
  if (!Number.isInteger(seconds) || seconds < 60 || seconds % 60 !== 0) return null;
  const min = seconds / 60;
  if (min === 1) return "* * * * *";
  if (min < 60 && 60 % min === 0) return `*/${min} * * * *`;
  if (min === 60) return "0 * * * *";
  const hours = min / 60;
  if (Number.isInteger(hours) && hours < 24 && 24 % hours === 0) return `0 */${hours} * * *`;
  if (hours === 24) return "0 0 * * *";
  if (hours === 168) return "0 0 * * 1";
  return null;
}

export function heartbeatSnippets(url: string, cfg: Record<string, unknown>, job = "/usr/local/bin/my-job"): HeartbeatSnippets {
  const schedule = typeof cfg.schedule === "string" && cfg.schedule.trim() ? cfg.schedule.trim() : null;
  const zone = typeof cfg.timezone === "string" && cfg.timezone ? cfg.timezone : "UTC";
  const every = cronForPeriod(Number(cfg.period_seconds));
  // The job's exit status picks the signal (…/0 up, any other down at once), so a failed run alerts without waiting for the deadline.
  const exited = `${CURL} ${url}/$? > /dev/null`;
  const line = `${job}; ${exited}`;
  // Vixie cron and cronie read CRON_TZ; it sets the zone of every line below it, so a schedule gets a file of its own.
  const name = job.split("/").pop() || "my-job";
  const crontab = schedule
    ? `# Save as /etc/cron.d/${name}: in a file of its own, CRON_TZ sets this job's zone only (the 6th field is the user).\nCRON_TZ=${zone}\n${schedule} root ${line}`
    : every
      ? `${every} ${line}`
      : `# every ${String(cfg.period_seconds)} s: no single cron line says that; run the job from its own loop or timer\n${line}`;
  return {
    urls: [
      { label: "success", url },
      { label: "start", url: `${url}/start` },
      { label: "failure", url: `${url}/fail` },
    ],
    crontab,
    wrapper: `${CURL} ${url}/start > /dev/null\n${job}\n${exited}`,
    // A pipe's status is curl's, so the output is kept first and the job's own status picks the URL.
    withOutput: `out=$(${job} 2>&1); status=$?\nprintf '%s\\n' "$out" | ${CURL} --data-binary @- "${url}/$status" > /dev/null`,
  };
}
