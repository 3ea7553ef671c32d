-- migrate:up
-- The rollup closer summarises the raw rows' new BRIN ranges itself before its steps (summarizeNewRanges in
-- db/results/maintenance.ts). autosummarize only asked autovacuum to do it per filled range, and autovacuum records at
-- most 256 such requests at a time: past ~250 filled ranges a minute (~30,000 monitors at a 20 s interval) it drops
-- the rest, each with a LOG line ("request for BRIN range summarization ... was not recorded"), ~600 a minute at
-- 100,000 monitors. Off for the index of every daily partition, and of those check_results_ensure_partition creates
-- from now on: a partitioned index's own options cannot be altered, and a new partition copies them.
do $migration$
declare
  r record;
begin
  if coalesce((select relkind from pg_class where oid = to_regclass('check_results')), '-') <> 'p' then
    return;
  end if;
  for r in
    select ic.relname from pg_inherits h join pg_index i on i.indrelid = h.inhrelid join pg_class ic on ic.oid = i.indexrelid
    join pg_am am on am.oid = ic.relam and am.amname = 'brin'
    where h.inhparent = 'check_results'::regclass
  loop
    execute format('alter index %I set (autosummarize = off)', r.relname);
  end loop;

  create or replace function check_results_ensure_partition(day date) returns boolean
  language plpgsql as $fn$
  declare
    part text := 'check_results_p' || to_char(day, 'YYYYMMDD');
    lo timestamptz := day::timestamp at time zone 'UTC';
    hi timestamptz := (day + 1)::timestamp at time zone 'UTC';
    moved integer;
    brin text;
  begin
    if to_regclass(part) is not null then
      return false;
    end if;
    -- Creating a partition takes this lock anyway; taking it first avoids a lock upgrade deadlock with ingest.
    lock table check_results in access exclusive mode;
    if to_regclass(part) is not null then
      return false;
    end if;
    create temp table check_results_moving on commit drop as
      with d as (delete from check_results_default where scheduled_at >= lo and scheduled_at < hi returning *)
      select * from d;
    get diagnostics moved = row_count;
    execute format('create table %I partition of check_results for values from (%L) to (%L)', part, lo, hi);
    -- The closer summarises this partition's BRIN ranges (migration 20261127120000).
    for brin in
      select ic.relname from pg_index i join pg_class ic on ic.oid = i.indexrelid join pg_am am on am.oid = ic.relam and am.amname = 'brin'
      where i.indrelid = to_regclass(part)
    loop
      execute format('alter index %I set (autosummarize = off)', brin);
    end loop;
    if moved > 0 then
      insert into check_results select * from check_results_moving;
    end if;
    drop table check_results_moving;
    return true;
  end $fn$;
end
$migration$;

-- migrate:down
do $migration$
declare
  r record;
begin
  if coalesce((select relkind from pg_class where oid = to_regclass('check_results')), '-') <> 'p' then
    return;
  end if;
  for r in
    select ic.relname from pg_inherits h join pg_index i on i.indrelid = h.inhrelid join pg_class ic on ic.oid = i.indexrelid
    join pg_am am on am.oid = ic.relam and am.amname = 'brin'
    where h.inhparent = 'check_results'::regclass
  loop
    execute format('alter index %I set (autosummarize = on)', r.relname);
  end loop;

  create or replace function check_results_ensure_partition(day date) returns boolean
  language plpgsql as $fn$
  declare
    part text := 'check_results_p' || to_char(day, 'YYYYMMDD');
    lo timestamptz := day::timestamp at time zone 'UTC';
    hi timestamptz := (day + 1)::timestamp at time zone 'UTC';
    moved integer;
  begin
    if to_regclass(part) is not null then
      return false;
    end if;
    lock table check_results in access exclusive mode;
    if to_regclass(part) is not null then
      return false;
    end if;
    create temp table check_results_moving on commit drop as
      with d as (delete from check_results_default where scheduled_at >= lo and scheduled_at < hi returning *)
      select * from d;
    get diagnostics moved = row_count;
    execute format('create table %I partition of check_results for values from (%L) to (%L)', part, lo, hi);
    if moved > 0 then
      insert into check_results select * from check_results_moving;
    end if;
    drop table check_results_moving;
    return true;
  end $fn$;
end
$migration$;
