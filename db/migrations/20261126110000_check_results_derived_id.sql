-- migrate:up
-- A result's id is derived from what already identifies it instead of 16 random bytes stored per row
-- (10 of the ~24 bytes a compressed TimescaleDB row cost; 16 of every plain heap row): a UUIDv7 whose
-- 48-bit timestamp is scheduled_at (ms), as before, and whose other 74 bits come from md5(job_id).
-- (job_id, scheduled_at) is unique, so the id is too, and a result delivered twice gets the same one.
-- New rows store id = NULL; rows stored before keep their random id, which coalesce() reads first, so
-- every existing `chk_…` id stays what it was. Every read goes through check_result_id().
create function check_result_id(stored uuid, job text, due timestamptz) returns uuid
language sql immutable parallel safe as $fn$
  select coalesce(stored, (
    lpad(to_hex(floor(extract(epoch from due) * 1000)::bigint), 12, '0')
    || '7' || substr(h, 14, 3)
    || to_hex(8 | (('x' || substr(h, 17, 1))::bit(4)::integer & 3))
    || substr(h, 18, 15))::uuid)
  from md5(job) as h
$fn$;

-- Plain storage only (a partitioned table; the TimescaleDB hypertable is altered by db/timescale/20261126110100).
do $migration$
begin
  if exists (select 1 from pg_class where relname = 'check_results' and relkind = 'p') then
    alter table check_results alter column id drop not null;
  end if;
end
$migration$;

-- migrate:down
do $migration$
begin
  if exists (select 1 from pg_class where relname = 'check_results' and relkind = 'p') then
    update check_results set id = check_result_id(id, job_id, scheduled_at) where id is null;
    alter table check_results alter column id set not null;
  end if;
end
$migration$;
drop function if exists check_result_id(uuid, text, timestamptz);
