import { t } from "elysia";
import { Obj, Id, PaginationQuery, Timestamp, DisplayName } from "../../schemas/common.ts";

const Name = DisplayName(120);
const Slug = t.String({ minLength: 1, maxLength: 64, pattern: "^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$", description: "URL name: /status/<slug>; unique per deployment" });
const AccessMode = t.Union([t.Literal("public"), t.Literal("password"), t.Literal("members")], {
  description: "public: anyone; password: a shared password (signed cookie); members: signed-in members of the organisation. Others get 404.",
});
const Cidr = t.String({ minLength: 1, maxLength: 64, description: "IPv4/IPv6 address or CIDR range" });

const AccessBody = Obj({
  mode: AccessMode,
  password: t.Optional(t.String({ minLength: 8, maxLength: 200, description: "Required when switching to password mode without one set; stored hashed (argon2id)" })),
  ip_allowlist: t.Optional(t.Array(Cidr, { maxItems: 100, description: "When non-empty, only these addresses see the page (on top of the mode)" })),
});

export const PageCreateBody = Obj({
  name: Name,
  slug: Slug,
  description: t.Optional(t.String({ maxLength: 2000 })),
  theme_id: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "light, dark, high-contrast or a custom theme id" })),
  access: t.Optional(AccessBody),
});

export const PagePatchBody = Obj({
  name: t.Optional(Name),
  slug: t.Optional(Slug),
  description: t.Optional(t.String({ maxLength: 2000 })),
  theme_id: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  access: t.Optional(AccessBody),
});

const ComponentView = t.Object({
  id: t.String(),
  monitor_id: t.Union([t.String(), t.Null()]),
  tag: t.Union([t.String(), t.Null()]),
  display_name: t.String(),
  description: t.String(),
});
export const LayoutView = t.Object({ sections: t.Array(t.Object({ id: t.String(), name: t.String(), components: t.Array(ComponentView) })) }, { title: "StatusPageLayout" });

export const LayoutBody = Obj({
  sections: t.Array(
    Obj({
      id: t.Optional(Id),
      name: Name,
      components: t.Array(
        Obj({
          id: t.Optional(Id),
          monitor_id: t.Optional(Id),
          tag: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
          display_name: Name,
          description: t.Optional(t.String({ maxLength: 500 })),
        }),
        { maxItems: 200 },
      ),
    }),
    { maxItems: 50, description: "The whole layout in display order; ids of existing sections/components keep them (omit to create)" },
  ),
});

const TxtRecord = t.Object({ type: t.Literal("TXT"), name: t.String(), value: t.String() });

export const PageView = t.Object(
  {
    id: t.String(),
    name: t.String(),
    slug: t.String(),
    description: t.String(),
    theme_id: t.String(),
    url: t.String({ description: "Public URL" }),
    access: t.Object({ mode: AccessMode, password_set: t.Boolean(), ip_allowlist: t.Array(t.String()) }),
    custom_domain: t.Union([
      t.Object({ domain: t.String(), verified: t.Boolean(), verified_at: t.Union([Timestamp, t.Null()]), txt_record: TxtRecord, active: t.Boolean({ description: "Verified and allowed by the plan" }) }),
      t.Null(),
    ]),
    suspended: t.Boolean({ description: "Over the plan's status-page quota: not served" }),
    layout: LayoutView,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: "StatusPage" },
);

export const DomainBody = Obj({ domain: t.String({ minLength: 3, maxLength: 253, description: "e.g. status.example.com" }) });

export const SubscriberBody = Obj({
  email: t.Optional(t.String({ minLength: 3, maxLength: 320, description: "Gets a confirmation email; active once confirmed" })),
  webhook_url: t.Optional(t.String({ minLength: 8, maxLength: 2000, description: "Receives incident JSON by POST; active at once" })),
});

const subscriberFields = {
    id: t.String(),
    kind: t.Union([t.Literal("email"), t.Literal("webhook")]),
    email: t.Union([t.String(), t.Null()]),
    webhook_url: t.Union([t.String(), t.Null()], { description: "Masked, as it may carry the receiver's credential: the origin, then •••• and the last 4 characters of the rest (none when the rest is under 12 characters)" }),
    confirmed: t.Boolean(),
    confirmed_at: t.Union([Timestamp, t.Null()]),
    created_at: Timestamp,
};

export const SubscriberView = t.Object(subscriberFields, { title: "StatusPageSubscriber" });

export const SubscriberCreatedView = t.Object(
  {
    ...subscriberFields,
    webhook_secret: t.Union([t.String({ pattern: "^whsec_" }), t.Null()], {
      description:
        "A webhook subscription's Standard Webhooks signing secret (whsec_…), shown here only: every notice carries webhook-id, webhook-timestamp and webhook-signature made with it. Adding the same URL again issues a new one and keeps this one valid until the next (both sign meanwhile). Null for an email subscriber.",
    }),
  },
  { title: "StatusPageSubscriberCreated" },
);

export const SubParams = Obj({ id: Id, subscriberId: Id });
export const ListQuery = Obj(PaginationQuery);
