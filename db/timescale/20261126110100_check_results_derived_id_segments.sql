-- migrate:up
-- TimescaleDB side of db/migrations/20261126110000 (check_result_id): new rows store no id.
alter table check_results alter column id drop not null;

-- Compressed batches per organisation instead of per monitor. With one daily chunk, a monitor's batch
-- held only its results of one day (1,440 at one a minute, 288 at 5 minutes, 96 at 15), so each row
-- carried a large share of the batch's fixed cost (segment values, per-column headers, metadata, tuple
-- and TOAST overhead): 24 bytes per row at one a minute, 31 at 5 minutes, 47 at 15 (bench/history.ts).
-- Segmenting by organisation fills batches to TimescaleDB's 1,000 rows whatever the interval; ordering
-- by monitor and location first keeps each series' times and job ids adjacent (regular deltas), and
-- gives min/max metadata on monitor_id, so a read of one monitor decompresses only its batches.
-- Applies to chunks compressed from now on; chunks compressed before keep their settings and stay readable.
alter table check_results set (
  timescaledb.compress_segmentby = 'org_id',
  timescaledb.compress_orderby = 'monitor_id, location, scheduled_at desc'
);

-- migrate:down
alter table check_results set (
  timescaledb.compress_segmentby = 'org_id, monitor_id',
  timescaledb.compress_orderby = 'scheduled_at desc'
);
update check_results set id = check_result_id(id, job_id, scheduled_at) where id is null;
alter table check_results alter column id set not null;
