import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, data, type paths } from "../../api/client";
import { EmptyState, ErrorMessage, Field, issuesOf, Loading, Select } from "../../components/ui";
import { ConfirmButton } from "../../components/widgets";
import { useMyRole } from "../org/use-permissions";
import { readReportBody, scheduleText, WEEKDAYS } from "./report-body";

type Report = paths["/api/v1/reports"]["get"]["responses"]["200"]["content"]["application/json"]["data"][number];
type Named = { id: string; name: string };
type Member = { user_id: string; email: string; name: string };

/** A time as the report's recipients read it: in the report's zone. */
const inZone = (iso: string, zone: string) => `${new Date(iso).toLocaleString(undefined, { timeZone: zone, dateStyle: "medium", timeStyle: "short" })} (${zone})`;

/** Scheduled report emails: weekly or monthly uptime, incidents and slowest monitors, with "send now" to preview. */
export function Reports() {
  const qc = useQueryClient();
  const { can } = useMyRole();
  const write = can("alerts:write");
  const reports = useQuery({ queryKey: ["reports"], queryFn: () => api.GET("/api/v1/reports", { params: { query: { limit: 100 } } }).then(data) });
  const pages = useQuery({ queryKey: ["status-pages", "names"], queryFn: () => api.GET("/api/v1/status-pages", { params: { query: { limit: 100 } } }).then(data) });
  const members = useQuery({ queryKey: ["org", "members"], queryFn: () => api.GET("/api/v1/org/members", { params: { query: { limit: 100 } } }).then(data) });
  const [editing, setEditing] = useState<string | null>(null);
  const [sent, setSent] = useState<string | null>(null);
  const remove = useMutation({
    mutationFn: (id: string) => api.DELETE("/api/v1/reports/{id}", { params: { path: { id } } }),
    onSettled: () => qc.invalidateQueries({ queryKey: ["reports"] }),
  });
  const send = useMutation({
    mutationFn: (v: { id: string; to: "me" | "recipients"; timezone: string }) => api.POST("/api/v1/reports/{id}/send", { params: { path: { id: v.id } }, body: { to: v.to } }).then(data),
    onSuccess: (r, v) => {
      // The period's days are the report's local days.
      const day = (t: number) => new Date(t).toLocaleDateString(undefined, { timeZone: v.timezone, day: "numeric", month: "short", year: "numeric" });
      const who = v.to === "me" ? "A preview is on its way to you" : `Queued for ${String(r.queued)} recipient${r.queued === 1 ? "" : "s"}`;
      setSent(`${who} (period ${day(Date.parse(r.period_start))} – ${day(Date.parse(r.period_end) - 1)}).`);
    },
  });
  if (reports.isPending) return <Loading what="reports" />;
  if (reports.isError) return <ErrorMessage error={reports.error} />;
  const pageList: Named[] = (pages.data?.data ?? []).map((p) => ({ id: p.id, name: p.name }));
  const memberList: Member[] = (members.data?.data ?? []).map((m) => ({ user_id: m.user_id, email: m.email, name: m.name }));
  const pageName = new Map(pageList.map((p) => [p.id, p.name]));
  return (
    <section aria-labelledby="reports-h">
      <h1 id="reports-h">Reports</h1>
      <p className="muted">A weekly or monthly email with uptime per monitor, incidents, the slowest monitors and a daily uptime chart, for the whole organisation or one status page. Every email has a one-click unsubscribe link.</p>
      {sent && (
        <p role="status" className="notice">
          {sent}
        </p>
      )}
      <ErrorMessage error={send.error ?? remove.error} />
      {reports.data.data.length === 0 ? (
        <EmptyState title="No reports yet">Schedule one below; use “Send preview to me” to see what it looks like.</EmptyState>
      ) : (
        <ul className="cards">
          {reports.data.data.map((r) => (
            <li key={r.id} className="card" aria-label={`Report ${r.name}`}>
              <strong>{r.name}</strong> {!r.enabled && <span className="badge">paused</span>}
              <p>
                {scheduleText({ ...r, day: Number(r.day) })} · {r.scope === "org" ? "whole organisation" : `status page ${pageName.get(r.status_page_id ?? "") ?? r.status_page_id}`}
              </p>
              <p className="muted">
                To:{" "}
                {r.recipients.map((x, i) => (
                  <span key={i}>
                    {i > 0 && ", "}
                    {x.email ?? "(former member)"}
                    {x.unsubscribed && " (unsubscribed)"}
                  </span>
                ))}
              </p>
              <p className="muted">
                Next: {inZone(r.next_send_at, r.timezone)} · Last sent: {r.last_sent_at ? inZone(r.last_sent_at, r.timezone) : "never"}
              </p>
              {write && (
                <div className="row">
                  <button onClick={() => send.mutate({ id: r.id, to: "me", timezone: r.timezone })} disabled={send.isPending}>
                    Send preview to me
                  </button>
                  <ConfirmButton
                    label="Send to recipients now"
                    title={`Send ${r.name} to every recipient now?`}
                    confirmLabel="Send now"
                    danger={false}
                    disabled={send.isPending}
                    onConfirm={() => send.mutate({ id: r.id, to: "recipients", timezone: r.timezone })}
                  >
                    <p>The report of the last complete period, as the scheduled email cuts it ({r.frequency === "weekly" ? "the seven days before its send day" : "the previous calendar month"}), goes to every subscribed recipient, marked as a preview. The scheduled email still goes out as usual.</p>
                  </ConfirmButton>
                  <button onClick={() => setEditing(editing === r.id ? null : r.id)} aria-expanded={editing === r.id}>
                    Edit
                  </button>
                  <ConfirmButton label="Delete" buttonLabel={`Delete ${r.name}`} title={`Delete the report ${r.name}?`} confirmLabel="Delete report" onConfirm={() => remove.mutate(r.id)}>
                    <p>No more emails of this report will be sent.</p>
                  </ConfirmButton>
                </div>
              )}
              {editing === r.id && <ReportForm report={r} pages={pageList} members={memberList} onDone={() => setEditing(null)} />}
            </li>
          ))}
        </ul>
      )}
      {write && (
        <>
          <h2>New report</h2>
          <ReportForm pages={pageList} members={memberList} />
        </>
      )}
    </section>
  );
}

function ReportForm(props: { report?: Report; pages: Named[]; members: Member[]; onDone?: () => void }) {
  const [round, setRound] = useState(0);
  return <ReportFormFields key={round} {...props} onSaved={() => setRound((r) => r + 1)} />;
}

function ReportFormFields({ report, pages, members, onDone, onSaved }: { report?: Report; pages: Named[]; members: Member[]; onDone?: () => void; onSaved: () => void }) {
  const qc = useQueryClient();
  const [scope, setScope] = useState(report?.scope ?? "org");
  const [frequency, setFrequency] = useState(report?.frequency ?? "weekly");
  const save = useMutation({
    mutationFn: (f: FormData) => {
      const body = readReportBody(f);
      if (report) return api.PATCH("/api/v1/reports/{id}", { params: { path: { id: report.id } }, body }).then(data);
      return api.POST("/api/v1/reports", { body }).then(data);
    },
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ["reports"] });
      onSaved();
      onDone?.();
    },
  });
  const issues = issuesOf(save.error);
  const uid = report?.id ?? "new-report";
  const ticked = new Set(report?.recipients.flatMap((r) => (r.type === "member" && r.user_id ? [r.user_id] : [])) ?? []);
  const extra = report?.recipients.flatMap((r) => (r.type === "email" && r.email ? [r.email] : [])).join("\n") ?? "";
  const zone = report?.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone ?? "UTC";
  const day = Number(report?.day ?? 1);
  return (
    <form
      className="stack"
      noValidate
      aria-label={report ? `Edit report ${report.name}` : "New report"}
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(new FormData(e.currentTarget));
      }}
    >
      <Field label="Report name" id={`${uid}-name`} name="name" required defaultValue={report?.name ?? "Weekly uptime report"} error={issues["body.name"]} />
      <Select label="Covers" id={`${uid}-scope`} name="scope" value={scope} onChange={(e) => setScope(e.target.value === "status_page" ? "status_page" : "org")}>
        <option value="org">The whole organisation</option>
        <option value="status_page">One status page</option>
      </Select>
      {scope === "status_page" && (
        <Select label="Status page" id={`${uid}-page`} name="status_page_id" defaultValue={report?.status_page_id ?? pages[0]?.id}>
          {pages.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </Select>
      )}
      {issues["body.status_page_id"] && <small className="field-error">{issues["body.status_page_id"]}</small>}
      <Select label="Frequency" id={`${uid}-frequency`} name="frequency" value={frequency} onChange={(e) => setFrequency(e.target.value === "monthly" ? "monthly" : "weekly")}>
        <option value="weekly">Weekly (the 7 days before the send day)</option>
        <option value="monthly">Monthly (the previous calendar month)</option>
      </Select>
      {frequency === "weekly" ? (
        <Select label="Send on" id={`${uid}-weekday`} name="weekday" defaultValue={String(day <= 7 ? day : 1)}>
          {WEEKDAYS.map((d, i) => (
            <option key={d} value={i + 1}>
              {d}
            </option>
          ))}
        </Select>
      ) : (
        <Field label="Day of the month" id={`${uid}-monthday`} name="monthday" type="number" min={1} max={28} defaultValue={day} error={issues["body.day"]} />
      )}
      <Field label="Time" id={`${uid}-time`} name="send_time" type="time" defaultValue={report?.send_time ?? "09:00"} error={issues["body.send_time"]} />
      <Field label="Time zone" id={`${uid}-tz`} name="timezone" defaultValue={zone} hint="IANA name, e.g. Europe/Berlin" error={issues["body.timezone"]} />
      <fieldset>
        <legend>Recipients</legend>
        {members.map((m) => (
          <label key={m.user_id} className="inline">
            <input type="checkbox" name="member" value={m.user_id} defaultChecked={ticked.has(m.user_id)} /> {m.name} ({m.email})
          </label>
        ))}
        <div className="field">
          <label htmlFor={`${uid}-emails`}>Other addresses (one per line)</label>
          <textarea id={`${uid}-emails`} name="emails" rows={2} defaultValue={extra} />
        </div>
        {(issues["body.recipients"] || Object.keys(issues).some((k) => k.startsWith("body.recipients."))) && (
          <small className="field-error">{issues["body.recipients"] ?? Object.entries(issues).find(([k]) => k.startsWith("body.recipients."))?.[1]}</small>
        )}
      </fieldset>
      <label className="inline">
        <input type="checkbox" name="enabled" defaultChecked={report?.enabled ?? true} /> Send on schedule
      </label>
      <div className="row">
        <button className="primary" disabled={save.isPending}>
          {report ? "Save report" : "Create report"}
        </button>
        {onDone && (
          <button type="button" onClick={onDone}>
            Cancel
          </button>
        )}
      </div>
      <ErrorMessage error={save.error} />
    </form>
  );
}
