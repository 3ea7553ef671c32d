-- migrate:up
-- Duration histogram shared by raw rows, rollup tables and TimescaleDB continuous aggregates,
-- so p50/p95 come out identical whichever path answers (docs/results-and-uptime.md).
-- Bucket i (0-based) is [bound[i], bound[i+1]) with bound = {0, 2, 4, ..., 120000}; 47 buckets,
-- the last one open-ended. Keep in step with HISTOGRAM_BOUNDS in core/results/histogram.ts (a test
-- compares both functions below with it).
create function result_duration_bucket(ms integer) returns integer
language sql immutable parallel safe strict
return width_bucket(ms, '{2,4,6,8,10,12,15,20,25,30,40,50,60,80,100,125,150,200,250,300,400,500,600,800,1000,1250,1500,2000,2500,3000,4000,5000,6000,8000,10000,12500,15000,20000,25000,30000,40000,50000,60000,80000,100000,120000}'::integer[]);

-- Element-wise sum of two histograms in an expression (rollup upserts). A plain SQL body, so the
-- planner inlines it: about four times faster per row than a PL/pgSQL loop.
create function result_hist_add(a integer[], b integer[]) returns integer[]
language sql immutable parallel safe as $$ select array[
  a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4], a[5] + b[5], a[6] + b[6], a[7] + b[7], a[8] + b[8],
  a[9] + b[9], a[10] + b[10], a[11] + b[11], a[12] + b[12], a[13] + b[13], a[14] + b[14], a[15] + b[15], a[16] + b[16],
  a[17] + b[17], a[18] + b[18], a[19] + b[19], a[20] + b[20], a[21] + b[21], a[22] + b[22], a[23] + b[23], a[24] + b[24],
  a[25] + b[25], a[26] + b[26], a[27] + b[27], a[28] + b[28], a[29] + b[29], a[30] + b[30], a[31] + b[31], a[32] + b[32],
  a[33] + b[33], a[34] + b[34], a[35] + b[35], a[36] + b[36], a[37] + b[37], a[38] + b[38], a[39] + b[39], a[40] + b[40],
  a[41] + b[41], a[42] + b[42], a[43] + b[43], a[44] + b[44], a[45] + b[45], a[46] + b[46], a[47] + b[47]
] $$;

-- The same as an aggregate step: PL/pgSQL updates the aggregate state in place, which beats the
-- SQL version there. Null inputs leave the state as it is.
create function result_hist_accum(state integer[], b integer[]) returns integer[]
language plpgsql immutable parallel safe as $$
begin
  if state is null then return b; end if;
  if b is null then return state; end if;
  for i in 1 .. array_length(b, 1) loop
    state[i] := state[i] + b[i];
  end loop;
  return state;
end $$;

-- The bounds are repeated here rather than calling result_duration_bucket(): TimescaleDB refreshes
-- continuous aggregates with search_path = pg_catalog, where our functions are not found by name.
create function result_hist_step(state integer[], ms integer) returns integer[]
language plpgsql immutable parallel safe as $$
declare
  i integer;
begin
  if ms is null then return state; end if;
  i := width_bucket(ms, '{2,4,6,8,10,12,15,20,25,30,40,50,60,80,100,125,150,200,250,300,400,500,600,800,1000,1250,1500,2000,2500,3000,4000,5000,6000,8000,10000,12500,15000,20000,25000,30000,40000,50000,60000,80000,100000,120000}'::integer[]) + 1;
  state[i] := state[i] + 1;
  return state;
end $$;

-- Histogram of raw durations; an empty input gives 47 zeros, never null.
create aggregate result_duration_hist(integer) (
  sfunc = result_hist_step, stype = integer[], combinefunc = result_hist_accum, parallel = safe,
  initcond = '{0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0}'
);

-- Element-wise sum of histograms (rollup rows into wider buckets).
create aggregate result_hist_sum(integer[]) (
  sfunc = result_hist_accum, stype = integer[], combinefunc = result_hist_accum, parallel = safe,
  initcond = '{0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0}'
);

-- migrate:down
drop aggregate result_hist_sum(integer[]);
drop aggregate result_duration_hist(integer);
drop function result_hist_step(integer[], integer);
drop function result_hist_accum(integer[], integer[]);
drop function result_hist_add(integer[], integer[]);
drop function result_duration_bucket(integer);
