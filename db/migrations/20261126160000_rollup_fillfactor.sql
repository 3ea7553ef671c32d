-- migrate:up
-- Plain PostgreSQL: the rollup closer rewrites every hourly row of the current hour once a minute (and
-- every daily row of the day once an hour). At fillfactor 70 a page had room for the new versions of
-- about a third of its rows, so the rest were not HOT: they went to other pages with an entry in each
-- index, and the table grew with every step (52 → 107 MB for 100,000 rows in four steps). At 45 a page
-- has room for a new version of each of its rows; the versions a step leaves behind are pruned before
-- the next step needs the room. Measured in four steps of 100,000 rows: every update HOT, the table
-- stays 78 MB, an upsert step 2.1–3.4 → 1.7–2.4 s (docs/performance.md). Pages already written keep
-- their rows; rows inserted from now on (each new hour's) get the new room.
do $migration$
begin
  if exists (select 1 from pg_class where relname = 'check_results_hourly' and relkind = 'r') then
    alter table check_results_hourly set (fillfactor = 45);
    alter table check_results_daily set (fillfactor = 45);
  end if;
end
$migration$;

-- migrate:down
do $migration$
begin
  if exists (select 1 from pg_class where relname = 'check_results_hourly' and relkind = 'r') then
    alter table check_results_hourly set (fillfactor = 70);
    alter table check_results_daily set (fillfactor = 70);
  end if;
end
$migration$;
