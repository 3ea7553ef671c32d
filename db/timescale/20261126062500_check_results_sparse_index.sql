-- migrate:up
-- Compressed raw results keep only the min/max of scheduled_at per batch. TimescaleDB would otherwise
-- add bloom filters from the btree indexes (job_id; job_id + scheduled_at; location + scheduled_at):
-- 2.4 bytes per row measured by bench/history.ts (27.5 → 25.1), for lookups the segmentby
-- (org_id, monitor_id) and the scheduled_at range already narrow to one batch. Versions without
-- the sparse_index option (before 2.22) keep their defaults.
do $sparse$
begin
  execute $$alter table check_results set (timescaledb.sparse_index = 'minmax(scheduled_at)')$$;
exception when others then
  raise notice 'timescaledb.sparse_index not supported here (%); compression keeps its default sparse indexes', sqlerrm;
end
$sparse$;

-- migrate:down
do $sparse$
begin
  execute $$alter table check_results reset (timescaledb.sparse_index)$$;
exception when others then
  null;
end
$sparse$;
