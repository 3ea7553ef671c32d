/**
 * Operation ids for client generators: `verbNoun` in camelCase (listMonitors, createMonitor, getMonitor,
 * updateMonitor, deleteMonitor, runMonitor), derived from the method and path by one rule:
 * - the noun is the path's fixed segments after /api/v1, each one followed by a parameter in the singular
 *   (/monitors/{id}/checks → MonitorChecks), `-`, `.` and `_` folded into camelCase;
 * - GET: `get` when the path ends in a parameter or a singular word, `list` when it ends in a plural;
 * - POST: `create` (noun singular) on a plural collection; on an action word (/monitors/{id}/run,
 *   /alert-rules/{id}/acknowledge) the action is the verb and the rest the noun; `send` to a parameter;
 * - PATCH `update`, PUT `replace`, DELETE `delete`.
 * OPERATION_ID_EXCEPTIONS names the few the rule reads badly; a test checks every id is unique and `^[a-z][A-Za-z0-9]*$`.
 */
const OPERATION_ID_EXCEPTIONS: Record<string, string> = {
  "POST /api/v1/status-pages/{id}/domain": "setStatusPageDomain",
  "POST /api/v1/billing/webhooks/paddle": "receivePaddleWebhook",
  "GET /api/v1/monitors/uptime": "listMonitorUptimes",
  "GET /api/v1/monitors/overview": "getMonitorsOverview",
  "POST /api/v1/monitors/bulk": "createMonitorsBulk",
  "POST /api/v1/monitors/test": "testMonitor",
  "GET /api/v1/metrics": "getMetrics",
  "POST /api/v1/status-pages/{id}/subscribers": "addStatusPageSubscriber",
  "POST /api/v1/org/invitations": "createInvitation",
  "GET /api/v1/org/invitations": "listOrgInvitations",
  "POST /api/v1/alert-rules/{id}/acknowledge": "acknowledgeAlert",
  "POST /api/v1/auth/signup": "signUp",
  "POST /api/v1/auth/signin": "signIn",
  "POST /api/v1/auth/signout": "signOut",
  "POST /api/v1/user/2fa/recovery-codes": "regenerateRecoveryCodes",
  "POST /api/v1/runner/session": "openRunnerSession",
  "POST /api/v1/runner/heartbeat": "sendRunnerHeartbeat",
  "POST /api/v1/runner/results": "submitRunnerResults",
  "GET /status/{slug}": "getStatusPageHtml",
  "GET /api/v1/heartbeat/{token}/start": "pingHeartbeatStart",
  "GET /api/v1/heartbeat/{token}/fail": "pingHeartbeatFail",
  "GET /api/v1/heartbeat/{token}/{exit_status}": "pingHeartbeatExitStatus",
  "POST /api/v1/heartbeat/{token}/{exit_status}": "sendHeartbeatExitStatus",
  "GET /api/v1/org/sso": "getSsoConfig",
  "PUT /api/v1/org/sso": "replaceSsoConfig",
  "DELETE /api/v1/org/sso": "deleteSsoConfig",
  "POST /api/v1/org/sso/test": "testSsoConnection",
  "POST /api/v1/auth/sso/start": "startSsoSignIn",
  "GET /api/v1/auth/sso/callback": "completeSsoSignIn",
  "POST /api/v1/alert-channels/preview": "previewAlertChannelMessage",
  "GET /api/v1/reports/unsubscribe": "getReportUnsubscribe",
  "POST /api/v1/reports/unsubscribe": "unsubscribeFromReport",
};

const isParam = (s: string) => s.startsWith("{");
const camel = (s: string) => s.split(/[-._]+/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join("");
const singular = (w: string) => (w.endsWith("ies") ? `${w.slice(0, -3)}y` : w.endsWith("ses") ? w.slice(0, -2) : w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") ? w.slice(0, -1) : w);
const plural = (w: string) => w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us");

export function operationIdFor(method: string, path: string): string {
  const exception = OPERATION_ID_EXCEPTIONS[`${method.toUpperCase()} ${path}`];
  if (exception) return exception;
  const segs = path.replace(/^\/api\/v1(?=\/)/, "").split("/").filter(Boolean);
  const last = segs.at(-1) ?? "root";
  const endsInParam = isParam(last);
  const nounOf = (parts: string[], singularLast: boolean) =>
    parts
      .map((s, i) => ({ s, next: parts[i + 1] ?? segs[parts.length] }))
      .filter(({ s }) => !isParam(s))
      .map(({ s, next }, i, all) => camel(next && isParam(next) ? singular(s) : i === all.length - 1 && singularLast ? singular(s) : s))
      .join("");
  const m = method.toLowerCase();
  if (m === "get") return endsInParam || !plural(last) ? `get${nounOf(segs, false)}` : `list${nounOf(segs, false)}`;
  if (m === "patch") return `update${nounOf(segs, false)}`;
  if (m === "put") return `replace${nounOf(segs, false)}`;
  if (m === "delete") return `delete${nounOf(segs, false)}`;
  if (endsInParam) return `send${nounOf(segs, false)}`;
  if (plural(last)) return `create${nounOf(segs, true)}`;
  const verb = camel(last);
  return `${verb[0]!.toLowerCase()}${verb.slice(1)}${nounOf(segs.slice(0, -1), false)}`;
}
