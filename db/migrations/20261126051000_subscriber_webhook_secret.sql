-- migrate:up
-- Status-page webhook notices are signed the Standard Webhooks way with a secret per subscription
-- (whsec_ + base64), encrypted with SECRET_KEY. Adding the same URL again issues a new secret and keeps
-- the one before as webhook_previous_secret_enc (both sign) until the next. Rows of earlier releases have
-- none and are sent unsigned until their URL is added again.
alter table status_page_subscribers add column webhook_secret_enc text, add column webhook_previous_secret_enc text;
alter table status_page_subscribers add constraint status_page_subscribers_secret_check check (
  (webhook_secret_enc is null or kind = 'webhook') and (webhook_previous_secret_enc is null or webhook_secret_enc is not null)
);

-- migrate:down
alter table status_page_subscribers drop constraint status_page_subscribers_secret_check;
alter table status_page_subscribers drop column webhook_secret_enc, drop column webhook_previous_secret_enc;
