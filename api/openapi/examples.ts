/** Examples on the main operations, by operationId: `request` on the JSON body, `response` on the success answer. Spectral checks each against its schema. */
const monitor = {
  id: "mon_01jh2k3m4n5p6q7r8s9t0v1w2x",
  name: "Homepage",
  type: "http",
  config: { url: "https://example.com/", method: "GET", expected_status: [200] },
  interval_seconds: 60,
  timeout_ms: 10000,
  regions: ["local"],
  runner_ids: [],
  tags: ["web"],
  paused: false,
  suspended: false,
  monitored: true,
  not_monitored_reason: null,
  status: "up",
  status_changed_at: "2026-11-26T03:00:00.000Z",
  last_checked_at: "2026-11-26T03:59:00.000Z",
  last_duration_ms: 182,
  created_at: "2026-11-26T02:58:00.000Z",
  updated_at: "2026-11-26T02:58:00.000Z",
};

export const OPERATION_EXAMPLES: Record<string, { request?: unknown; response?: unknown }> = {
  createMonitor: {
    request: { name: "Homepage", type: "http", config: { url: "https://example.com/" }, interval_seconds: 60, tags: ["web"] },
    response: monitor,
  },
  listMonitors: {
    response: { data: [monitor], pagination: { page: 1, limit: 20, total: 1, totalPages: 1, hasMore: false } },
  },
  runMonitor: {
    response: {
      id: "chk_01jh2k9z8y7x6w5v4t3s2r1q0p",
      status: "up",
      duration_ms: 182,
      data: { status_code: 200 },
      checked_at: "2026-11-26T03:59:00.000Z",
      location: "local",
      recorded: true,
    },
  },
  createAlertRule: {
    request: {
      name: "Homepage down",
      scope: { type: "monitor", monitor_id: monitor.id },
      condition: { type: "status_change", to: ["down"] },
      escalation_policy_id: "esc_01jh2kb3c4d5e6f7g8h9j0k1m2",
    },
    response: {
      id: "rul_01jh2kc4d5e6f7g8h9j0k1m2n3",
      name: "Homepage down",
      description: null,
      enabled: true,
      scope: { type: "monitor", monitor_id: monitor.id },
      condition: { type: "status_change", to: ["down"] },
      confirmation: { consecutive_failures: 1, confirmation_regions: null },
      notifications: { on_recovery: true, recurring: false, recurring_interval_minutes: null },
      channels: [],
      escalation_policy_id: "esc_01jh2kb3c4d5e6f7g8h9j0k1m2",
      key: null,
      disabled_reason: null,
      created_at: "2026-11-26T03:00:00.000Z",
      updated_at: "2026-11-26T03:00:00.000Z",
    },
  },
};
