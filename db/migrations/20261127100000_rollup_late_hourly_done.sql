-- migrate:up
-- Plain PostgreSQL: the closer now adds the hours an hour's last step completes to the daily rollup before it
-- takes the watermark lock (not under it: 1.5 s of ingest's wait at 100,000 monitors, once an hour), and holds
-- those daily rows of the watermark's day until it commits. Ingest, holding the lock in SHARE mode, must not
-- wait for them: a late result of an earlier hour of that day still goes to its hourly row at once (readers use
-- it), while its part of the day's daily row waits here for the closer, marked hourly_done. Readers never read
-- the watermark's day from the daily rollup, so nothing is missing meanwhile.
alter table rollup_late add column hourly_done boolean not null default false;

-- migrate:down
alter table rollup_late drop column hourly_done;
