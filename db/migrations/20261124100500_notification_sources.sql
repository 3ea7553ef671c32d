-- migrate:up
-- Sources of the in-app feed besides alerts (docs/alerting.md, "In-app notifications").

-- Time-sortable notification ids like newId("ntf"): 12 hex digits of milliseconds, 20 random.
create function new_notification_id() returns text language sql volatile as $$
  select 'ntf_' || lpad(to_hex((extract(epoch from clock_timestamp()) * 1000)::bigint), 12, '0')
              || substr(replace(gen_random_uuid()::text, '-', ''), 1, 20)
$$;

create function utc_text(t timestamptz) returns text language sql immutable as $$
  select to_char(t at time zone 'UTC', 'YYYY-MM-DD HH24:MI') || ' UTC'
$$;

-- Runners: set when the "went offline" notice is written, cleared with the "back online" notice,
-- so each transition is announced once however many alerting processes sweep.
alter table runners add column offline_notified_at timestamptz;

-- Billing: every change of a subscription line's status, whichever path made it (provider webhook,
-- grace expiry, period end, the user's own cancel or resume), lands in the feed in the same transaction.
create function billing_line_notification() returns trigger language plpgsql as $$
declare
  product text := coalesce((select name from plans where id = new.product_id), (select name from addons where id = new.product_id), new.product_id);
  what text := case when new.kind = 'plan' then 'plan ' || product else 'add-on ' || product end;
  kind text;
  title text;
  body text;
begin
  if tg_op = 'INSERT' then
    if new.status <> 'active' then return new; end if;
    kind := 'billing.subscribed';
    title := 'Subscribed: ' || product;
    body := 'The ' || what || ' is active; the current period ends ' || utc_text(new.period_end) || '.';
  elsif old.status is not distinct from new.status then
    return new;
  elsif new.status = 'grace_period' then
    kind := 'billing.payment_failed';
    title := 'Payment failed: ' || product;
    body := 'The last payment for the ' || what || ' failed. Everything keeps working until '
            || coalesce(utc_text(new.grace_ends_at), 'the end of the grace period')
            || '; update the payment method in Billing to keep it.';
  elsif new.status = 'past_due' then
    kind := 'billing.past_due';
    title := 'Unpaid: ' || product || ' ended';
    body := case when new.kind = 'plan' then 'The grace period ended without a payment: the organisation is on the Free plan now.'
                 else 'The grace period ended without a payment: the add-on is cancelled.' end;
  elsif new.status = 'pending_cancellation' then
    kind := 'billing.cancellation_scheduled';
    title := 'Cancellation scheduled: ' || product;
    body := 'The ' || what || ' ends on ' || coalesce(utc_text(new.cancel_at), utc_text(new.period_end)) || '; it works until then.';
  elsif new.status = 'cancelled' then
    kind := 'billing.cancelled';
    title := 'Ended: ' || product;
    body := case when new.kind = 'plan' then 'The ' || what || ' has ended: the organisation is on the Free plan now.'
                 else 'The ' || what || ' has ended.' end;
  elsif new.status = 'active' and old.status = 'grace_period' then
    kind := 'billing.payment_recovered';
    title := 'Payment received: ' || product;
    body := 'The ' || what || ' is paid and active again.';
  elsif new.status = 'active' then
    kind := 'billing.resumed';
    title := 'Continues: ' || product;
    body := 'The ' || what || ' is active again and renews on ' || utc_text(new.period_end) || '.';
  else
    return new;
  end if;
  insert into notifications (id, org_id, type, title, body, data)
  values (new_notification_id(), new.org_id, kind, title, body,
          jsonb_build_object('line_id', new.id, 'product_id', new.product_id, 'line_kind', new.kind, 'status', new.status,
                             'previous_status', case when tg_op = 'UPDATE' then old.status end));
  return new;
end $$;
create trigger billing_lines_notify after insert or update of status on billing_lines
  for each row execute function billing_line_notification();

create function billing_overlap_notification() returns trigger language plpgsql as $$
declare
  addon text := coalesce((select a.name from billing_lines l join addons a on a.id = l.product_id where l.id = new.line_id), 'an add-on');
  plan text := coalesce((select name from plans where id = new.plan_id), new.plan_id);
begin
  insert into notifications (id, org_id, type, title, body, data)
  values (new_notification_id(), new.org_id, 'billing.overlap', 'Your plan now includes an add-on you pay for',
          'The ' || plan || ' plan already includes what ' || addon || ' adds. Keep the add-on or cancel it at the next renewal (Billing).',
          jsonb_build_object('overlap_id', new.id, 'line_id', new.line_id, 'plan_id', new.plan_id));
  return new;
end $$;
create trigger billing_overlaps_notify after insert on billing_overlaps
  for each row execute function billing_overlap_notification();

create function org_plan_notification() returns trigger language plpgsql as $$
declare
  plan text := coalesce((select name from plans where id = new.plan_id), new.plan_id);
begin
  insert into notifications (id, org_id, type, title, body, data)
  values (new_notification_id(), new.id, 'billing.plan_changed', 'Plan changed to ' || plan,
          'The organisation''s limits are those of the ' || plan || ' plan from now on.',
          jsonb_build_object('plan_id', new.plan_id, 'previous_plan_id', old.plan_id));
  return new;
end $$;
create trigger organisations_plan_notify after update of plan_id on organisations
  for each row when (old.plan_id is distinct from new.plan_id) execute function org_plan_notification();

-- migrate:down
drop trigger organisations_plan_notify on organisations;
drop function org_plan_notification();
drop trigger billing_overlaps_notify on billing_overlaps;
drop function billing_overlap_notification();
drop trigger billing_lines_notify on billing_lines;
drop function billing_line_notification();
alter table runners drop column offline_notified_at;
drop function utc_text(timestamptz);
drop function new_notification_id();
