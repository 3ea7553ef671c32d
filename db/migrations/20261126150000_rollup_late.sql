-- migrate:up
-- Plain PostgreSQL: late results (due before the rollup watermark) of the watermark's own hour. The
-- closer writes that hour's hourly rows before it takes the watermark lock, and ingest takes the lock
-- before it writes rollup rows, so ingest adding such a result to its hourly row could deadlock with
-- the closer. Ingest stores it here instead (besides its raw row), and the closer's next step moves
-- these rows into the hourly rollup under the lock (domain/results/rollup-closer.ts). Readers never
-- read the watermark's hour from the rollup, except the metrics window, which adds these rows.
create table rollup_late (
  org_id text not null,
  monitor_id text not null,
  location text not null,
  scheduled_at timestamptz not null,
  status text not null,
  duration_ms integer not null
);
create index rollup_late_org_time on rollup_late (org_id, scheduled_at);

-- migrate:down
drop table rollup_late;
