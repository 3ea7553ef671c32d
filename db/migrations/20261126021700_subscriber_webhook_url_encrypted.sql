-- migrate:up
-- A webhook subscriber's URL often carries the receiver's credential (a Slack or Zapier hook): it is
-- stored encrypted with SECRET_KEY (webhook_url_enc) and found by its SHA-256 (webhook_url_hash).
-- Rows of earlier releases keep webhook_url in clear until the API seals them at start-up
-- (core/status-pages/seal-plaintext.ts): a migration has no key to encrypt with.
alter table status_page_subscribers add column webhook_url_enc text, add column webhook_url_hash bytea;
alter table status_page_subscribers drop constraint status_page_subscribers_check;
alter table status_page_subscribers add constraint status_page_subscribers_check check (
  (kind = 'email') = (email is not null)
  and (kind = 'webhook') = (webhook_url is not null or webhook_url_enc is not null)
  and (webhook_url_enc is null) = (webhook_url_hash is null)
);
create unique index status_page_subscribers_webhook_hash_key on status_page_subscribers (page_id, webhook_url_hash) where webhook_url_hash is not null;

-- migrate:down
-- Encrypted URLs cannot be decrypted here; those subscriptions go.
delete from status_page_subscribers where kind = 'webhook' and webhook_url is null;
drop index status_page_subscribers_webhook_hash_key;
alter table status_page_subscribers drop constraint status_page_subscribers_check;
alter table status_page_subscribers drop column webhook_url_enc, drop column webhook_url_hash;
alter table status_page_subscribers add constraint status_page_subscribers_check check ((kind = 'email') = (email is not null) and (kind = 'webhook') = (webhook_url is not null));
