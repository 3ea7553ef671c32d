import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { alertId } from "../../../schemas/alerting/alert-id.ts";
import { api, data } from "../api/client";
import { useRouter } from "../lib/router";
import { fmtTime } from "./ui";

/** Where a notification leads: an alert's notices its timeline, others about a monitor the monitor, else the alert list. */
const notificationTarget = (n: { type: string; data: Record<string, unknown> }) => {
  const { rule_id, monitor_id, region, incarnation } = n.data;
  if (typeof rule_id === "string" && typeof monitor_id === "string" && typeof region === "string" && typeof incarnation === "number" && incarnation > 0)
    return `/alerts/${encodeURIComponent(alertId({ rule_id, monitor_id, region, incarnation }))}`;
  return typeof monitor_id === "string" ? `/monitors/${monitor_id}` : n.type.startsWith("delivery") ? "/alerts/history" : "/alerts";
};

/**
 * The in-app feed: unread count on the bell (refreshed by live alert events, polled as a fallback,
 * and shown in the tab title), a popover list that marks what you open as read.
 */
export function NotificationBell() {
  const qc = useQueryClient();
  const { navigate } = useRouter();
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  const count = useQuery({ queryKey: ["notifications", "count"], queryFn: () => api.GET("/api/v1/notifications/unread-count").then(data), refetchInterval: 300_000 });
  const list = useQuery({ queryKey: ["notifications", "list"], enabled: open, queryFn: () => api.GET("/api/v1/notifications", { params: { query: { limit: 20 } } }).then(data) });
  const refresh = () => qc.invalidateQueries({ queryKey: ["notifications"] });
  const readAll = useMutation({ mutationFn: () => api.POST("/api/v1/notifications/read-all"), onSettled: refresh });
  const readOne = useMutation({ mutationFn: (id: string) => api.POST("/api/v1/notifications/{id}/read", { params: { path: { id } } }), onSettled: refresh });
  const unread = Number(count.data?.unread ?? 0);

  useEffect(() => {
    const base = document.title.replace(/^\(\d+\) /, "");
    document.title = unread > 0 ? `(${unread}) ${base}` : base;
  }, [unread]);
  useEffect(() => {
    if (!open) return;
    panel.current?.querySelector<HTMLElement>("button, a")?.focus();
    const outside = (e: MouseEvent) => {
      if (!panel.current?.contains(e.target as Node) && !button.current?.contains(e.target as Node)) setOpen(false);
    };
    addEventListener("mousedown", outside);
    return () => removeEventListener("mousedown", outside);
  }, [open]);
  const close = () => {
    setOpen(false);
    button.current?.focus();
  };

  return (
    <div className="bell">
      <button ref={button} aria-label={`Notifications, ${unread} unread`} aria-expanded={open} aria-haspopup="dialog" onClick={() => setOpen(!open)}>
        <BellIcon />
        {unread > 0 && (
          <span className="count" data-testid="unread-count" aria-hidden="true">
            {unread > 99 ? "99+" : unread}
          </span>
        )}
      </button>
      {open && (
        <div ref={panel} className="popover" role="dialog" aria-label="Notifications" onKeyDown={(e) => e.key === "Escape" && close()}>
          <div className="row">
            <strong>Notifications</strong>
            <button className="link" onClick={() => readAll.mutate()} disabled={unread === 0}>
              Mark all read
            </button>
          </div>
          {list.isPending && <p className="muted">Loading…</p>}
          {list.data?.data.length === 0 && <p className="muted">Nothing yet. Alerts that fire, recover or fail to deliver show up here.</p>}
          <ul className="notifications">
            {list.data?.data.map((n) => (
              <li key={n.id} className={n.read ? "read" : "unread"}>
                <button
                  className="notification"
                  onClick={() => {
                    if (!n.read) readOne.mutate(n.id);
                    setOpen(false);
                    navigate(notificationTarget(n));
                  }}
                >
                  <strong>
                    {!n.read && <span className="sr-only">Unread: </span>}
                    {n.title}
                  </strong>
                  <span>{n.body}</span>
                  <small className="muted">{fmtTime(n.created_at)}</small>
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

function BellIcon() {
  return (
    <svg width="18" height="18" viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
      <path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9" />
      <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
    </svg>
  );
}
