-- migrate:up
-- Plain PostgreSQL: the instant through which the hourly rollup is complete. Every result due
-- (scheduled_at) before it is counted there, and in the daily rollup when due before its hour;
-- results due at or after it are raw rows only, until the scheduler's closer aggregates them and
-- moves this forward (domain/results/rollup-closer.ts). Ingest upserts rollups only for late results
-- (due before it). TimescaleDB's continuous aggregates do not use it. An existing database starts at
-- the whole hour after the next: the old ingest rolled up every result stored so far, and until then
-- the new one rolls up every result it stores, as the old one did. A rolling upgrade has at least an
-- hour to stop the previous release's ingest (an old ingest still running past this instant would roll
-- up results the closer then adds again).
create table rollup_watermark (
  id boolean primary key default true check (id),
  closed_through timestamptz not null
);
insert into rollup_watermark (closed_through) values (date_trunc('hour', now()) + interval '2 hours');
-- A database without results (a fresh one) starts at the current minute. (With TimescaleDB
-- check_results does not exist yet here: dynamic SQL, so the statement is not even planned.)
do $migration$
begin
  if to_regclass('check_results') is not null then
    execute 'update rollup_watermark set closed_through = date_trunc(''minute'', now()) where not exists (select 1 from check_results)';
  end if;
end
$migration$;

-- Ingest reads the watermark under this advisory lock in SHARE mode, the closer in EXCLUSIVE mode, so
-- a batch's results are either rolled up by the batch or seen (committed) by the closer, never both
-- or neither. The lock is taken before the read, which takes its own snapshot after the wait (a
-- volatile PL/pgSQL function; READ COMMITTED). Key (727, 300): db/advisory-locks.ts.
create function rollup_watermark_shared() returns timestamptz
language plpgsql volatile as $$
begin
  perform pg_advisory_xact_lock_shared(727, 300);
  return (select closed_through from rollup_watermark);
end $$;

create function rollup_watermark_exclusive() returns timestamptz
language plpgsql volatile as $$
begin
  perform pg_advisory_xact_lock(727, 300);
  return (select closed_through from rollup_watermark);
end $$;

-- The closer reads the raw rows of one minute across all organisations: a BRIN index on the due
-- time finds them without a scan of the day's partition (rows arrive nearly in due-time order, so
-- block ranges stay narrow; autosummarize keeps filled ranges summarised). Plain mode only: with
-- TimescaleDB check_results does not exist yet here (db/timescale creates it).
do $migration$
begin
  if (select relkind from pg_class where oid = to_regclass('check_results')) = 'p' then
    create index check_results_scheduled_brin on check_results using brin (scheduled_at) with (pages_per_range = 16, autosummarize = on);
  end if;
end
$migration$;

-- migrate:down
drop index if exists check_results_scheduled_brin;
drop function rollup_watermark_exclusive();
drop function rollup_watermark_shared();
drop table rollup_watermark;
