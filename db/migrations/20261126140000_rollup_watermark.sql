-- migrate:up
-- Plain PostgreSQL: the instant through which the hourly and daily rollup tables are complete. Every
-- result due (scheduled_at) before it is counted in them; results due at or after it are raw rows only,
-- until the scheduler's closer aggregates them and moves this forward (domain/results/rollup-closer.ts).
-- Ingest upserts rollups only for late results (due before it). TimescaleDB's continuous aggregates
-- do not use it. An existing database starts at the migration's instant: the old ingest rolled up
-- every earlier result (stop the old ingest before migrating, or it would roll up later ones too).
-- Whole milliseconds, as JavaScript's Date holds them (rounded up: nothing due after it is rolled up yet).
create table rollup_watermark (
  id boolean primary key default true check (id),
  closed_through timestamptz not null
);
insert into rollup_watermark (closed_through) values (date_trunc('milliseconds', now()) + interval '1 millisecond');

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

-- migrate:down
drop function rollup_watermark_exclusive();
drop function rollup_watermark_shared();
drop table rollup_watermark;
