import { FormIssuesError } from "../../lib/form-issues";

type Recipient = { type: "member"; user_id: string } | { type: "email"; email: string };

export interface ReportBody {
  name: string;
  scope: "org" | "status_page";
  status_page_id: string | null;
  frequency: "weekly" | "monthly";
  day: number;
  send_time: string;
  timezone: string;
  recipients: Recipient[];
  enabled: boolean;
}

/** The report form as the API's body: members ticked plus one extra address per line. */
export function readReportBody(f: FormData): ReportBody {
  const issues: { path: string; message: string }[] = [];
  const name = String(f.get("name") ?? "").trim();
  if (!name) issues.push({ path: "body.name", message: "is required" });
  const scope = f.get("scope") === "status_page" ? "status_page" : "org";
  const pageId = String(f.get("status_page_id") ?? "");
  if (scope === "status_page" && !pageId) issues.push({ path: "body.status_page_id", message: "pick a status page" });
  const frequency = f.get("frequency") === "monthly" ? "monthly" : "weekly";
  const day = Number(f.get(frequency === "weekly" ? "weekday" : "monthday"));
  const emails = String(f.get("emails") ?? "")
    .split(/[\s,;]+/)
    .map((e) => e.trim())
    .filter(Boolean);
  const recipients: Recipient[] = [...f.getAll("member").map((id) => ({ type: "member" as const, user_id: String(id) })), ...emails.map((email) => ({ type: "email" as const, email }))];
  if (recipients.length === 0) issues.push({ path: "body.recipients", message: "pick a member or add an address" });
  if (issues.length) throw new FormIssuesError(issues);
  return {
    name,
    scope,
    status_page_id: scope === "status_page" ? pageId : null,
    frequency,
    day,
    send_time: String(f.get("send_time") ?? "09:00"),
    timezone: String(f.get("timezone") ?? "UTC").trim(),
    recipients,
    enabled: f.get("enabled") === "on",
  };
}

export const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

export function scheduleText(r: { frequency: string; day: number; send_time: string; timezone: string }): string {
  const when = r.frequency === "weekly" ? `every ${WEEKDAYS[r.day - 1]}` : `on day ${r.day} of every month`;
  return `${r.frequency === "weekly" ? "Weekly" : "Monthly"}, ${when} at ${r.send_time} (${r.timezone})`;
}
