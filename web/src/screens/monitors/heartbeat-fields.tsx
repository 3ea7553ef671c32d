import { useMemo, useState } from "react";
import { nextExpected, timingIssues } from "../../../../schemas/heartbeat/schedule.ts";
import { Field, withLabel } from "../../components/ui";

const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
const ZONES: string[] = [
  ...new Set(["UTC", ...((Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.("timeZone") ?? [browserZone])]),
];
const PREVIEW_RUNS = 3;

/** "Thu 27 Nov, 03:00 CET" in the schedule's zone. */
const runLabel = (zone: string, t: number) =>
  new Intl.DateTimeFormat("en-GB", { timeZone: zone, weekday: "short", day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short" }).format(t);

/** The next runs of a schedule as the API will expect them, or what is wrong with it. */
function preview(schedule: string, zone: string): { runs: string[]; problem: string | null } {
  if (!schedule.trim()) return { runs: [], problem: null };
  const problem = timingIssues({ schedule, timezone: zone }).find((i) => i.field !== "")?.message ?? null;
  if (problem) return { runs: [], problem };
  return { runs: nextExpected({ schedule, timezone: zone }, Date.now(), PREVIEW_RUNS).map((t) => runLabel(zone, t)), problem: null };
}

/**
 * A heartbeat's timing: a fixed period, or a cron schedule in a time zone with its next runs
 * previewed (computed in the browser by the same code the API's sweep uses). Inputs are named
 * `config.<field>` so the form reads them like the generated fields.
 */
export function HeartbeatFields({ value = {}, issues }: { value?: Record<string, unknown>; issues: Record<string, string> }) {
  const [mode, setMode] = useState<"period" | "schedule">(value.schedule ? "schedule" : "period");
  const [schedule, setSchedule] = useState(String(value.schedule ?? "0 3 * * *"));
  // A saved schedule without a zone runs in UTC (the API's default): offer the browser's zone only for a new schedule,
  // or saving any other change would move the job's expected runs to the editor's local time.
  const [zone, setZone] = useState(String(value.timezone ?? (value.schedule === undefined && ZONES.includes(browserZone) ? browserZone : "UTC")));
  const shown = useMemo(() => preview(schedule, zone), [schedule, zone]);
  const issue = (f: string) => issues[`body.config.${f}`];
  return (
    <>
      <fieldset aria-describedby={issues["body.config"] ? "hb-timing-err" : undefined}>
        <legend>When does your job ping?</legend>
        <label className="inline">
          <input type="radio" name="heartbeat_mode" value="period" checked={mode === "period"} onChange={() => setMode("period")} /> Every fixed period
        </label>
        <label className="inline">
          <input type="radio" name="heartbeat_mode" value="schedule" checked={mode === "schedule"} onChange={() => setMode("schedule")} /> On a cron schedule
        </label>
        {issues["body.config"] && (
          <small id="hb-timing-err" className="field-error">
            {issues["body.config"]}
          </small>
        )}
      </fieldset>
      {mode === "period" ? (
        <Field
          label="Expected every (seconds)"
          name="config.period_seconds"
          type="number"
          min={30}
          max={31 * 86_400}
          required
          defaultValue={value.period_seconds === undefined ? 3600 : Number(value.period_seconds)}
          hint="30 s to 31 days between two pings"
          error={issue("period_seconds")}
        />
      ) : (
        <div className="row">
          <Field
            label="Cron expression"
            name="config.schedule"
            required
            maxLength={200}
            value={schedule}
            onChange={(e) => setSchedule(e.target.value)}
            hint="5 fields: minute hour day month weekday (6 with seconds first), e.g. 0 3 * * * for 03:00 daily"
            error={issue("schedule")}
            spellCheck={false}
          />
          <div className="field">
            <label htmlFor="hb-timezone">Time zone</label>
            <select id="hb-timezone" name="config.timezone" value={zone} onChange={(e) => setZone(e.target.value)} aria-invalid={issue("timezone") ? true : undefined}>
              {(ZONES.includes(zone) ? ZONES : [zone, ...ZONES]).map((z) => (
                <option key={z}>{z}</option>
              ))}
            </select>
            {issue("timezone") && <small className="field-error">{issue("timezone")}</small>}
          </div>
        </div>
      )}
      {mode === "schedule" && (
        <div className="card" aria-live="polite" data-testid="schedule-preview">
          {shown.problem ? (
            // Said once: after a save the field itself carries the same words.
            shown.problem === issue("schedule") ? (
              <span className="muted">No runs to show until the cron expression is fixed.</span>
            ) : (
              <span className="field-error">{withLabel("Cron expression", shown.problem)}</span>
            )
          ) : shown.runs.length > 0 ? (
            <>
              <strong>Next {shown.runs.length} runs</strong> ({zone}); a ping is expected by each, plus the grace period:
              <ol>
                {shown.runs.map((r) => (
                  <li key={r}>{r}</li>
                ))}
              </ol>
            </>
          ) : (
            <span className="muted">Type a cron expression to see its next runs.</span>
          )}
        </div>
      )}
      <Field
        label="Grace period (seconds)"
        name="config.grace_seconds"
        type="number"
        min={0}
        max={31 * 86_400}
        defaultValue={value.grace_seconds === undefined ? 300 : Number(value.grace_seconds)}
        hint="How long after a missed run the monitor turns down"
        error={issue("grace_seconds")}
      />
    </>
  );
}
