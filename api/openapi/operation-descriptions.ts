/**
 * Each operation's `description` in the OpenAPI document: what it does beyond its one-line summary and
 * the errors worth knowing, by operationId, followed by who may call it — that sentence is derived from
 * the route's own `requires` guard and security (accessNote), so it cannot drift from the code.
 * An operation whose route writes a description of its own keeps it and gets only the access sentence.
 * tests/api/openapi-generators.test.ts checks every operation is described and no entry is stale.
 */
export const OPERATION_DESCRIPTIONS: Record<string, string> = {
  // system
  getHealthz: "Answers 200 while the process serves requests, without touching the database; for liveness probes.",
  getReadyz: "200 `{status: ready}` when the database answers and every migration is applied, 503 `{status: unavailable}` otherwise; for readiness probes and load balancers.",

  // public status pages and badges
  getStatusPageHtml:
    "The page as HTML for people: components with their status, uptime bars and open incidents. A private page is shown only to members (404 to others); a password-protected one answers the password form (401) until the access cookie is set.",
  getStatusIndexJson: "The same content as the HTML page (page, status, sections, incidents, maintenance) as JSON for scripts and widgets; the same visibility rules.",
  getStatusFeedRss: "The page's incidents and their updates as an RSS 2.0 feed, newest first; the same visibility rules as the page.",
  getStatusFeedAtom: "The page's incidents and their updates as an Atom feed, newest first; the same visibility rules as the page.",
  loginStatus: "Checks the page's password and sets a signed cookie for that page, then redirects to it. Throttled per address and per page (429).",
  subscribeStatus: "Adds an email subscriber who must confirm from the emailed link before notices are sent; the same answer whether the address was already subscribed.",
  getStatusConfirm: "Shows a confirmation button for an emailed subscription link; a GET changes nothing, so mail scanners that fetch links subscribe no one. A bad or expired token answers 400.",
  confirmStatus: "Confirms the subscription the token names; harmless to repeat. A bad or expired token answers 400.",
  getBadgeStatusSvg: "An SVG badge with the current status of a monitor or component that is on a public page. Anything else, including a private page's monitor, is 404 (plain text).",
  getBadgeUptimeSvg: "An SVG badge with the uptime percentage over the period, for monitors and components on a public page (404 otherwise).",
  getBadgeResponseTimeSvg: "An SVG badge with the average response time over the last 24 hours, for monitors and components on a public page (404 otherwise).",

  // accounts
  signUp:
    "Creates the user and an organisation they own, and signs them in (wp_session and wp_csrf cookies); with the invitation_token of an emailed invitation to this address, the user joins the inviting organisation instead and gets none of its own. Where sign-up is closed (SIGNUP_OPEN=false, the default of a self-hosted installation, BILLING=false) only with invitation_token, otherwise 403 PERMISSION_DENIED with details.reason \"signup_closed\"; GET /setup says whether it is open. A token that is unknown, used, expired or revoked is 404; one sent to another address 403 with details.reason \"invitation_email_mismatch\". 409 when the email is taken; limited to a few attempts per IP per minute.",
  signOut: "Ends the session of the cookie that was sent and clears the cookies; other sessions stay signed in.",
  requestAuthPasswordReset: "Always answers 202 so that the answer does not reveal which addresses have accounts; the email carries a token valid for one hour. Limited per IP.",
  confirmAuthPasswordReset: "Sets the new password once per token and ends every session of the account; an unknown, used or expired token answers 400.",
  getSetup:
    "`{ needed: true }` while the installation has no organisation yet, so the dashboard can offer its first-run screen; false for good afterwards. `signup_open` says whether POST /auth/signup takes anyone (SIGNUP_OPEN), or only people with an invitation's token.",

  // the signed-in user
  getUser: "The signed-in user's name, email, 2FA state and timestamps.",
  updateUser: "Changes name, email or password; changing email or password needs current_password (missing or wrong: 400 on body.current_password). A new email that is taken is 409.",
  deleteUser: "Needs your password (wrong: 401, throttled like sign-in). Organisations where you are the only member go with the account; where you are the only owner of an organisation with other members the answer is 409 (details name them) until you hand over ownership.",
  listUserSessions: "Every live session of your account with its user agent, IP and last use; `current` marks the one making this request.",
  deleteUserSession: "Signs one of your sessions out at once, in every API process; 404 for a session that is not yours.",
  setupUser2fa: "Generates a new TOTP secret (not active yet) and its otpauth:// URI for a QR code; confirm it with POST /user/2fa/enable. 409 when 2FA is already on.",
  enableUser2fa: "Turns 2FA on after a valid code from the authenticator; the ten recovery codes are in this answer only. A wrong code is 400; 409 without a prior setup or when already on.",
  disableUser2fa: "Turns 2FA off after a current TOTP code or an unused recovery code (wrong: 400); 409 when 2FA is not on. An organisation that requires 2FA then refuses you (403 two_factor_required) until you turn it on again.",
  regenerateRecoveryCodes: "Issues ten new recovery codes, shown once; the old ones stop working.",
  getUserExport: "Your profile, organisations with your role, sessions, the API keys you created (never their secrets) and up to 10,000 of your audit entries, as one JSON document, for data-portability requests.",

  // organisations
  listOrgs: "Every organisation you belong to with your role and whether its policy requires 2FA; send one's id as X-Org-Id to act in it.",
  createOrg:
    "Creates an organisation with you as its owner; select it with X-Org-Id. 403 (details.reason signup_closed) where sign-up is closed (SIGNUP_OPEN, closed by default when self-hosted) unless you already own an organisation; 403 sso_session from a session opened by single sign-on, which acts in its organisation only.",
  getOrg: "Name, plan and timestamps of the organisation X-Org-Id selects (your default one without it).",
  updateOrg: "Renames the active organisation.",
  listOrgMembers: "Members with their role, 2FA state and join date.",
  listOrgRoles: "The four system roles and the custom ones, each with its permissions; `permissions` beside the page lists every permission a role can hold.",
  createOrgRole: "A custom role from the permission list (GET /org/roles). 409 when the name is taken; 403 when it would carry a permission you lack.",
  getOrgRole: "One system or custom role with its permissions.",
  updateOrgRole: "Changes a custom role's name or permissions; members holding it get the new permissions on their next request. System roles cannot be changed (409).",
  deleteOrgRole: "Deletes a custom role; 409 while members or pending invitations hold it, and for system roles.",
  getOrgSecurityPolicy: "Whether members must use 2FA (require_2fa) and when that was last changed.",
  updateOrgSecurityPolicy: "Sets the organisation-wide requirements; with require_2fa, members without 2FA get 403 two_factor_required on organisation routes until they enable it. Turning require_2fa on needs a signed-in user who has 2FA: 403 own_two_factor_required otherwise, 403 session_required for an API key (turning it off is not refused).",
  updateOrgMember: "Gives a member another role. Granting or removing owner needs an owner; demoting the last owner is 409.",
  deleteOrgMember: "Removes a member from the organisation; their sessions lose access and their API keys stop working. Removing the last owner is 409.",
  createInvitation: "Emails an invitation link for a role the sender may grant; it is void if the sender later loses the right to grant it. 409 when an invitation to that address is pending.",
  listOrgInvitations: "Invitations not yet accepted, with role, sender and expiry.",
  deleteOrgInvitation: "Revokes a pending invitation; its link stops working.",
  listInvitations: "Invitations to other organisations waiting for you; see the summary for when this list is filled.",
  acceptInvitations: "Adds you to the inviting organisation with the invited role. An unknown, expired or void invitation (its sender can no longer grant the role) is 404; 409 when you are already a member.",

  // API keys
  createApiKey: "Mints a key `wp_live_…` with scopes you hold (never beyond your role or your own key) and an optional expiry in the future; the key is in this answer only, stored as a hash.",
  listApiKeys: "Keys with their name, display prefix, scopes, creator (user, and key when minted by one), last use and expiry; never the secret.",
  listApiKeysScopes: "`data` is the scopes a new key made by this caller may hold (never beyond its role, or its key); `all` is every scope.",
  deleteApiKey: "Revokes the key, and every key it minted, at once in every API process. A key with scopes beyond yours, or another member's key without org:admin, is 403.",

  getAuditLog: "Successful writes through the API, each with actor (user or key), action, target, IP and time; filter by actor, action, target and time range.",
  listEntitlements: "What the organisation's plan and add-ons allow (monitors, minimum interval, regions, runners, browsers, status pages, retention…) and how much of each is used; quota errors elsewhere (403 ENTITLEMENT_REQUIRED) name the same entitlements.",

  // billing
  listBillingPlans: "The plans on offer with monthly and annual prices and included quotas, and the add-ons that raise single quotas.",
  getBillingSubscription: "The organisation's subscription: status (active, past_due…), the payment banner to show (during grace, with `payment_url`: the provider's page to update the payment method and pay the failed renewal, which ends the grace; and `invoice_url`: the failed renewal's open invoice, paid there with the card on file, which ends it too), the plan's included quotas and every billed line.",
  getBillingAddonsActive: "Add-on lines currently in force, including those in a payment grace period or ending at the period end.",
  listBillingOverlaps: "Add-ons that a plan change made redundant (the new plan includes what they add), waiting for you to cancel or keep them.",
  checkoutBilling: "Without a subscription: a hosted checkout URL of the payment provider. With one: add-ons are added to it and charged at once (a plan change goes through POST /billing/change-plan: 409 here). 409 when billing is off on this deployment.",
  changePlanBilling: "Moves the subscription to another plan; upgrades charge the prorated difference now, downgrades credit it on the next invoice; monitors over the new plan's quota are suspended (kept, not scheduled). 409 without a paid plan, when already on the plan, or while the plan is ending. `preview: true` only computes the amounts. `delete_suspended_at`: when what the change suspends is deleted if still suspended (the new plan's grace days later).",
  cancelBillingLine: "Marks one active plan or add-on line to end at its period end (pending_cancellation) and answers the line as GET /billing/subscription shows it, its `invoice_url` included; 409 for a line that is not active.",
  resumeBillingLine: "Withdraws a pending cancellation and answers the line as GET /billing/subscription shows it, its `invoice_url` included; 409 when the line is not pending cancellation (buy it again with POST /billing/checkout).",
  cancelBillingOverlap: "Cancels the overlapping add-on at its next renewal and credits its unused balance, prorated; `line` is the add-on line as GET /billing/subscription shows it, its `invoice_url` included.",
  dismissBillingOverlap: "Keeps the overlapping add-on on top of the plan and dismisses the notice.",

  // results
  listMonitorUptimes: "One uptime figure (with up, down, degraded, timeout and unavailable counts) per monitor named in `ids` (at most 100), over the same window; for list and dashboard views.",
  getMonitorCheck: "One stored result by its chk_ id or by the job id that produced it, with every field of its type's `data`.",

  // monitors
  getMonitorsOverview:
    "What the dashboard's first screen needs in one call (four set-based queries whatever the page size): `counts` of every monitor by state (up, down, degraded, paused, not_monitored) as filters, and a page of monitors — worst first by default, filtered by `state`, type, tag or name — each with its 24 h uptime and `bar`, its latest 30 to 90 results (time, status, response time, location) oldest first.",
  listMonitors: "Every monitor of the organisation, filtered by type, status, tag, paused or a part of the name; `sort` orders by creation, name, status or last response time.",
  createMonitor: "The scheduler runs the new monitor's first check at once (not an interval later) unless it is created paused. `config` is validated against the type's schema (HttpConfig for http, …; 400 with details.issues naming body.config.*; a heartbeat's cron `schedule` must parse and run at least 30 s apart, a DNS `resolver` must be an IP address with a port in range, and a HEAD request takes no body checks). Plan limits answer 403 ENTITLEMENT_REQUIRED (details.entitlement): the monitor quotas, the minimum interval and the regions per monitor. Targets in private address ranges are refused outside self-hosted installations.",
  getMonitor: "The monitor with its type's config (secrets masked), schedule, placement and current status; heartbeat monitors carry their ping URL.",
  updateMonitor:
    "Only the fields sent change. A new `type` needs a `config` of that type; a `config` is checked against the (new or current) type. The same plan limits as on create apply. Changes apply from the next scheduled check.",
  deleteMonitor: "Deletes the monitor and its stored results; alert rules scoped to it are disabled (disabled_reason says why) rather than deleted.",
  pauseMonitor: "Stops scheduling checks; results so far are kept. Answers the monitor.",
  testMonitor:
    "Runs the check a monitor with this body would run, once, where it would run (its first online runner, else a worker of its first region) through the same run-now request, and answers the result; nothing is stored and no alert is evaluated. The body is validated as POST /monitors validates it (400 VALIDATION_ERROR naming body.config.*; 403 ENTITLEMENT_REQUIRED for the plan's minimum interval and regions) and the worker applies the private-address guard of scheduled checks (outside self-hosted installations a private target answers status down saying it was refused); the monitor quota is not checked. 409 for heartbeat monitors (nothing to run); 503 SERVICE_UNAVAILABLE, as for run-now, when no worker or runner can run it.",
  resumeMonitor: "Schedules checks again from now, the first one at once. A monitor suspended over the plan's quota stays suspended (kept, not scheduled) until the plan covers it. Answers the monitor.",
  pauseMonitorsBulk: "Pauses every monitor whose id is in `ids` and/or that carries `tag`; ids of other organisations simply do not match. Answers how many matched and changed, and their ids.",
  resumeMonitorsBulk: "Resumes every matching monitor; answers how many matched and changed, and their ids.",
  deleteMonitorsBulk: "Deletes every matching monitor with its results; answers the ids deleted.",
  getRetention: "`retention_days` is the plan's; results due before `oldest_kept` are gone. Result ranges start there by default.",

  // monitor groups (tags)
  listMonitorGroups: "Groups are monitor tags: each with how many monitors carry it, counts by status, and the worst status among them.",
  getMonitorGroup: "One tag with its monitor counts and aggregate status; 404 when no monitor carries it.",
  updateMonitorGroup: "Renames the tag on every monitor carrying it. 409 when a group with the new name exists, unless `merge: true` combines the two.",
  deleteMonitorGroup: "Removes the tag from every monitor; the monitors stay. 404 when no monitor carries it.",

  // maintenance
  listMaintenanceWindows: "Windows with their schedule, scope and state (upcoming, active, ended); filter by state.",
  createMaintenanceWindow: "One-off (starts_at, ends_at) or recurring (rrule or cron, with duration_minutes) in an IANA time zone, covering monitor_ids and/or tags. While it is active, suppress_alerts holds notifications for the covered monitors and pause_monitors stops their checks. An RRULE or cron expression that does not parse is 400 with the parser's reason (`body.rrule`, `body.cron`).",
  getMaintenanceWindow: "One window with its state; current_ends_at while active and next_starts_at for the next occurrence.",
  updateMaintenanceWindow: "Changes schedule, scope or text; the same rules as on create (ends after starts, rrule or cron not both, an RRULE or cron expression that parses, a known time zone).",
  deleteMaintenanceWindow: "Deletes the window; an active one stops holding alerts at once.",

  // regions
  listRegions: "Each cloud region with how many workers are online, the jobs waiting, and recent check latency; for choosing where monitors run.",
  listLocations: "The regions and self-hosted runners a monitor of this organisation may be placed on under its plan.",

  // alerting
  listAlertChannels: "Every alert channel with its type's config (secret fields masked) and whether it is enabled.",
  createAlertChannel: "`config` is validated against the type's schema (WebhookChannelConfig for webhook, …; 400 naming body.config.*). The alert_channels quota answers 403 ENTITLEMENT_REQUIRED.",
  getAlertChannel: "The channel with its type's config; secret fields are masked (••••1234).",
  updateAlertChannel: "Only the fields sent change; a `config` is checked against the channel's (new or current) type.",
  deleteAlertChannel: "Deletes the channel; 409 while an alert rule or escalation policy sends to it (details.rule_ids, details.escalation_policy_ids).",
  listAlertRules: "Rules with their scope, condition, confirmation, notification settings and where they send.",
  createAlertRule: "`scope` says which monitors it watches, `condition` when it fires (its `type` picks the shape: MonitorScope, StatusChangeCondition, …). Give either `channels` or an `escalation_policy_id`. The alert_rules quota answers 403 ENTITLEMENT_REQUIRED; ids of another organisation answer 400.",
  getAlertRulesActive: "Alerts firing now, one row per rule, monitor and region, with whether they were acknowledged and when they last notified.",
  getAlertRule: "The rule with every default filled in.",
  updateAlertRule: "Sending `channels` replaces an escalation policy and sending `escalation_policy_id` replaces the channels. Re-enabling clears disabled_reason.",
  deleteAlertRule: "Deletes the rule and its alert states; to keep it but stop evaluating, PATCH enabled: false.",
  acknowledgeAlert: "404 for an unknown rule or monitor; when nothing fires, `acknowledged` is empty. Paging tools already told about the alert hear of the acknowledgement.",
  listEscalationPolicies: "Policies with their ordered steps: a delay and the channels to notify.",
  createEscalationPolicy: "Steps run in order after their delay until the alert is acknowledged or recovers; each step names channels of this organisation.",
  getEscalationPolicy: "One policy with its steps.",
  updateEscalationPolicy: "Replaces the name or steps.",
  deleteEscalationPolicy: "Deletes the policy; 409 while an alert rule refers to it (details.rule_ids).",
  listMonitorMaintenanceSpans:
    "Each occurrence of the maintenance windows that cover the monitor (by id, by tag, or all monitors) overlapping [from, to), with whether it pauses checks or silences alerts; recurring windows are expanded. A range of more than 400 days or `to` not after `from` is 400.",
  getAlertTimeline:
    "The story of one alert (one firing period of a rule × monitor × region): when it started, each failing result from that region with its id, every notification decided for it (channel, kind, delivery status, attempts, last error), who acknowledged it, and the result that cleared it. The id is the `alert_id` that active alerts and alert history rows carry; an unknown or malformed id is 404.",
  getAlertsHistory: "One row per delivery attempt (alert, escalation, reminder, recovery, acknowledgement, test), failed or not, with its outcome: status, the receiver's HTTP status, error and duration.",
  listAlertCapabilities: "What the alerting screens offer: the channel and condition types and the alerting features the plan includes, with its alerting quotas.",
  listNotifications: "In-app notifications: alerts fired and recovered, deliveries given up on, runners going offline or online, billing events; newest first, with read state.",
  getNotificationsUnreadCount: "The unread count for the bell in the dashboard header.",
  readNotification: "Marks one notification read; 404 for one that is not yours.",
  readAllNotifications: "Marks every unread notification read; `marked` says how many.",

  // heartbeat
  getHeartbeat: "Records a success ping for the heartbeat monitor the token belongs to: an up result, and the next deadline follows its period or cron schedule (plus grace). The token in the URL is the credential (rate-limited per IP); an unknown token is 404, a paused monitor answers `recorded: false`. A query string (a cache buster, a run id, an exit code) is accepted and ignored.",
  sendHeartbeat: "The same as GET, for cron jobs and scripts that POST; the body (any content type) is kept as text in the result's data.body, its first 10 KB. The token in the URL is the credential (rate-limited per IP); an unknown token is 404, a paused monitor answers `recorded: false`. A query string (a cache buster, a run id, an exit code) is accepted and ignored.",
  pingHeartbeatStart: "Start signal: the job began. Records no result of its own; the next success or fail ping records the run's duration since this start. The token in the URL is the credential (rate-limited per IP); an unknown token is 404, a paused monitor answers `recorded: false`. A query string (a cache buster, a run id, an exit code) is accepted and ignored.",
  startHeartbeat: "The start signal by POST; the body's first 10 KB are kept with the run. The token in the URL is the credential (rate-limited per IP); an unknown token is 404, a paused monitor answers `recorded: false`. A query string (a cache buster, a run id, an exit code) is accepted and ignored.",
  pingHeartbeatFail: "Fail signal: the job failed. A down result at once (the monitor goes down without waiting for the deadline). The token in the URL is the credential (rate-limited per IP); an unknown token is 404, a paused monitor answers `recorded: false`. A query string (a cache buster, a run id, an exit code) is accepted and ignored.",
  failHeartbeat: "The fail signal by POST; the body's first non-empty line becomes the result's error and its first 10 KB are kept in data.body. The token in the URL is the credential (rate-limited per IP); an unknown token is 404, a paused monitor answers `recorded: false`. A query string (a cache buster, a run id, an exit code) is accepted and ignored.",
  pingHeartbeatExitStatus: "Ping with the job's exit status (`my-job; curl …/$?`): 0 records an up result as the success ping does, any other status (1 to 255) a down result at once, as the fail signal does, with the error \"the job exited with status <n>\". The status is kept in data.exit_status. A segment that is not a whole number from 0 to 255 (no sign, no leading zero) is 400 VALIDATION_ERROR at params.exit_status. The token in the URL is the credential (rate-limited per IP); an unknown token is 404, a paused monitor answers `recorded: false`. A query string is accepted and ignored.",
  sendHeartbeatExitStatus: "The exit-status ping by POST; the body's first non-empty line follows the error of a failure and its first 10 KB are kept in data.body. The token in the URL is the credential (rate-limited per IP); an unknown token is 404, a paused monitor answers `recorded: false`. A query string is accepted and ignored.",
  getSsoConfig: "The organisation's single sign-on (OpenID Connect) configuration: issuer, client id, allowed email domains, the role of new members, whether SSO is required; the client secret is never returned (masked). 404 when none is configured.",
  deleteSsoConfig: "Turns single sign-on off: members keep their accounts and password sign-in works again. 404 when none is configured.",
  testSsoConnection: "Fetches the issuer's discovery document as sign-in would (through the network guard) and reports what it offers (authorization and token endpoints, PKCE S256); one that cannot be reached or is no OpenID provider answers 200 with `ok: false` and the reason. 400 for an issuer that is not an https URL (http only on loopback or with SSO_ALLOW_HTTP_ISSUER).",

  // runners
  listRunners:
    "Self-hosted runners with their status (online, offline, revoked), location label, last-seen and last-check times, when a runner stopped on purpose (stopped_at), and what each last reported: name, region, version, checks in flight.",
  createRunner: "The token in this answer is shown once and stored as a hash; start the runner with it (GET /runners/setup gives the docker run line). The runners quota answers 403 ENTITLEMENT_REQUIRED.",
  getRunnersSetup: "The values a docker run line for a runner needs on this deployment; no secrets.",
  getRunner: "One runner; never its token.",
  updateRunner: "Changes the name or location label shown in monitor placement and on the runners screen. 400 VALIDATION_ERROR naming body.name for a name that is empty, only spaces or over 200 characters.",
  deleteRunner: "Monitors placed only on this runner are left with nowhere to run (monitored: false) until given another place; its queued checks are recorded unavailable.",
  getRunnerStatus:
    "What the runner last reported in its heartbeat (name, region, version, capabilities, checks in flight); offline once no heartbeat arrived for offline_after_ms, or at once when it stopped on purpose and ended its session (stopped_at; docs/runners.md). `overloaded` while more checks are due on it than it runs (its CONCURRENCY over the checks' durations): the scheduler then keeps due checks back until the runner takes them, so each monitor is still checked, less often (docs/runners.md, Capacity).",

  // status pages
  listStatusPages: "Status pages with their slug, access mode (public, password, members), custom-domain state and layout.",
  createStatusPage: "A page at /status/{slug}; access `members` shows it only to signed-in members, `password` asks for a password. The status_pages quota answers 403 ENTITLEMENT_REQUIRED.",
  getStatusPage: "The page's settings, access mode and custom-domain state.",
  updateStatusPage: "Only the fields sent change; the same rules as on create.",
  deleteStatusPage: "Deletes the page with its layout and subscribers; incidents stay.",
  getStatusPageLayout: "Sections and their components in display order; each component shows one monitor or one tag group.",
  replaceStatusPageLayout: "Replaces the whole layout. A component names exactly one of monitor_id and tag, of this organisation (400 otherwise).",
  listStatusPageSubscribers: "Email and webhook subscribers with their confirmation state; emails of unconfirmed subscribers included.",
  addStatusPageSubscriber: "Exactly one of email and webhook_url. An email subscriber gets a confirmation link first; a webhook subscriber receives SubscriberWebhookPayload on every incident change.",
  setStatusPageDomain: "The page is served at the domain once POST …/domain/verify finds the TXT record. Custom domains need a paid plan (403 ENTITLEMENT_REQUIRED custom_domains); 409 when another page has the domain.",
  deleteStatusPageDomain: "The page is no longer served at its custom domain; its /status/{slug} address stays.",
  verifyStatusPageDomain: "Looks the TXT record up now; on a match the domain is verified and served. 409 with details.expected (and found) when the record is missing or differs.",
  deleteStatusPageSubscriber: "Removes the subscriber; it receives no further notices.",
  listThemes: "Themes a status page can use: the built-in ones and this organisation's custom themes (colours, logo, custom CSS).",
  createTheme: "Colours, logo, favicon and custom CSS for status pages.",
  getTheme: "One built-in or custom theme.",
  updateTheme: "Changes a custom theme; pages using it show the change at once. CSS is checked as on create (400).",
  deleteTheme: "Deletes a custom theme; 409 while a page uses it.",

  // incidents
  listIncidents: "Incidents with their impact, status, affected components and pages, and their updates.",
  createIncident: "Opens an incident on status pages (impact, affected components, first message); email and webhook subscribers of those pages are notified once the incident is stored.",
  getIncident: "The incident with every update in order.",
  updateIncident: "Changes title, impact or affected components without telling subscribers.",
  deleteIncident: "Removes the incident and its updates from pages and feeds.",
  createIncidentUpdate: "Adds a message, and optionally a new status, to the timeline; subscribers of the incident's pages are notified.",
  resolveIncident: "Sets status resolved with a closing message; subscribers are notified.",

  // unsubscribe links
  getUnsubscribe: "For the link in a notification email; a GET never unsubscribes (mail scanners fetch links). An invalid token is 400.",
  unsubscribe: "Ends the subscription the token names; harmless to repeat.",
  listReports: "The organisation's scheduled report emails (weekly or monthly), oldest first, each with its scope, schedule, recipients (with an `unsubscribed` flag) and next send.",
  createReport: "Schedules a weekly or monthly report email of uptime per monitor, incidents and the slowest monitors, for the organisation or one status page, sent in the report's time zone. 400 for an unknown time zone, a status page of another organisation, or a member who is not one of this organisation.",
  getReport: "One scheduled report with its recipients and the next time it is sent. 404 for another organisation's report.",
  updateReport: "Changes a report; fields left out keep their value and the next send follows the new schedule. 404 for another organisation's report.",
  deleteReport: "Deletes a report; reports already sent stay in the recipients' mailboxes. 404 for another organisation's report.",
  sendReport: "Sends the last complete period's report now, the period as the schedule cuts it (the latest scheduled send's, or the next one's when only its send time is still to come: a weekly report covers the seven days before its send day, not the last seven days), marked as a preview, to the caller (default) or to every subscribed recipient; 202 once queued in the mail outbox. Never counts as the period's scheduled send.",
  getReportUnsubscribe: "What a report email's unsubscribe link does, without doing it: an HTML page with an Unsubscribe button for browsers, JSON otherwise. The signed token in the link is the credential; 400 when it is invalid or expired.",
  unsubscribeFromReport: "Unsubscribes the address in the signed token from that report: the confirmation page's button and RFC 8058 one-click unsubscribe; idempotent. 400 when the token is invalid or expired.",
};

/** The caller an operation needs, from its route's `requires` guard (a permission, "user" or "member") and its security. */
export function accessNote(requirement: string | undefined, security: unknown[] | undefined): string {
  if (requirement === "user") return "Who: a signed-in user session (the dashboard's cookie; writes also send X-CSRF-Token). API keys are refused (403).";
  if (requirement === "member") return "Who: any member of the active organisation, by session or API key; no particular permission.";
  if (requirement === "billing:manage" || requirement === "org:owner") return `Who: a role with \`${requirement}\` (the owner role, or a custom role granting it); API keys never carry it (403).`;
  if (requirement === "org:admin") return "Who: a role with `org:admin` (owner, admin, or a custom role granting it), or an API key with the org:admin scope (403 otherwise).";
  if (requirement) {
    const roles = requirement.endsWith(":read") ? "every system role" : "owner, admin and member";
    return `Who: a role with \`${requirement}\` (${roles}, or a custom role granting it; org:admin implies it), or an API key with that scope (403 otherwise).`;
  }
  const usesRunnerToken = security?.some((s) => s && typeof s === "object" && "runnerToken" in s);
  if (usesRunnerToken) return "Who: a self-hosted runner, with its rt_ token (401 RUNNER_TOKEN_INVALID when unknown or revoked).";
  return "Who: anyone; no credentials.";
}
