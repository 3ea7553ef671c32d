-- migrate:up
-- When the provider says the subscription's latest completed transaction happened: an older
-- transaction.completed arriving late must not replace it (out-of-order webhooks).
alter table billing_subscriptions add column last_transaction_at timestamptz;

-- migrate:down
alter table billing_subscriptions drop column last_transaction_at;
