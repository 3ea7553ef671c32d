-- migrate:up
-- The raw results' unique key, due time first: (scheduled_at, job_id) instead of (job_id, scheduled_at). The job id
-- is `monitor.location.due`, so the old key put each monitor's new entries on a leaf page of its own, scattered over
-- the index: at 40,000 monitors ~40,000 hot leaf pages (~300 MB) for this index alone, each insert reading about one
-- block into shared buffers (docs/performance.md). Due time first, every insert lands at the index's right edge. The
-- same constraint (a job that re-ran or a result delivered twice is stored once), and ingest's
-- `on conflict (job_id, scheduled_at)` infers the new index as it did the old one (an arbiter is found by its set of
-- columns).
--
-- Plain storage (a partitioned table) only; TimescaleDB's hypertable is rekeyed by housekeeping
-- (db/results/result-key.ts). The parent index is created on the parent only, invalid until every partition has its
-- own attached: here, partitions of up to 8 MB (a fresh database, empty days ahead, a small installation) get theirs
-- at once; housekeeping builds the rest with CREATE INDEX CONCURRENTLY, which never blocks ingest, and drops the old
-- key once the new one is valid. Partitions created from now on get the new index with the table.
do $migration$
declare
  r record;
  idx text;
begin
  if coalesce((select relkind from pg_class where oid = to_regclass('check_results')), '-') <> 'p' then
    return;
  end if;
  create unique index if not exists check_results_due_job_key on only check_results (scheduled_at, job_id);
  for r in
    select c.relname from pg_inherits h join pg_class c on c.oid = h.inhrelid
    where h.inhparent = 'check_results'::regclass and pg_relation_size(c.oid) <= 8 * 1024 * 1024
      and not exists (
        select 1 from pg_index i join pg_inherits hi on hi.inhrelid = i.indexrelid
        where i.indrelid = c.oid and hi.inhparent = 'check_results_due_job_key'::regclass)
    order by 1
  loop
    idx := r.relname || '_scheduled_at_job_id_idx';
    execute format('create unique index %I on %I (scheduled_at, job_id)', idx, r.relname);
    execute format('alter index check_results_due_job_key attach partition %I', idx);
  end loop;
  if (select indisvalid from pg_index where indexrelid = 'check_results_due_job_key'::regclass) then
    alter table check_results drop constraint if exists check_results_job_key;
  end if;
end
$migration$;

-- migrate:down
-- Back to (job_id, scheduled_at), built in this transaction (it blocks writes to check_results while it builds).
do $migration$
begin
  if coalesce((select relkind from pg_class where oid = to_regclass('check_results')), '-') <> 'p' then
    return;
  end if;
  if not exists (select 1 from pg_constraint where conname = 'check_results_job_key' and conrelid = 'check_results'::regclass) then
    alter table check_results add constraint check_results_job_key unique (job_id, scheduled_at);
  end if;
  drop index if exists check_results_due_job_key;
end
$migration$;
