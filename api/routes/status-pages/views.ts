import type { StatusPageRow } from "../../../db/queries/status-pages.ts";
import type { SubscriberRow } from "../../../db/queries/subscribers.ts";
import type { Layout } from "../../../domain/status-pages/service.ts";
import { txtRecordOf } from "../../../domain/status-pages/domain.ts";
import type { SecretBox } from "../../../core/crypto/secrets.ts";
import { maskWebhookUrl, subscriberWebhookUrl } from "../../../domain/status-pages/subscribers.ts";

export function toLayoutView(layout: Layout) {
  return {
    sections: layout.sections.map((s) => ({
      id: s.id,
      name: s.name,
      components: s.components.map((c) => ({ id: c.id, monitor_id: c.monitor_id, tag: c.tag, display_name: c.display_name, description: c.description })),
    })),
  };
}

export function toPageView(p: StatusPageRow, layout: Layout, baseUrl: string, domainsAllowed: boolean) {
  const txt = txtRecordOf(p);
  return {
    id: p.id,
    name: p.name,
    slug: p.slug,
    description: p.description,
    theme_id: p.theme_id,
    url: `${baseUrl}/status/${p.slug}`,
    access: { mode: p.access_mode, password_set: p.password_hash !== null, ip_allowlist: p.ip_allowlist },
    custom_domain:
      p.custom_domain && txt
        ? { domain: p.custom_domain, verified: p.domain_verified_at !== null, verified_at: p.domain_verified_at?.toISOString() ?? null, txt_record: txt, active: p.domain_verified_at !== null && domainsAllowed }
        : null,
    suspended: p.suspended,
    layout: toLayoutView(layout),
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
  };
}

/** A webhook URL often carries the receiver's token: only its origin is shown in clear. */
export function toSubscriberView(s: SubscriberRow, box: SecretBox) {
  const url = subscriberWebhookUrl(box, s);
  return {
    id: s.id,
    kind: s.kind,
    email: s.email,
    webhook_url: url === null ? null : maskWebhookUrl(url),
    confirmed: s.confirmed_at !== null,
    confirmed_at: s.confirmed_at?.toISOString() ?? null,
    created_at: s.created_at.toISOString(),
  };
}
