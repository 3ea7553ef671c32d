-- migrate:up
-- The element-wise histogram sum's step (result_hist_sum, and the combine step of both histogram aggregates)
-- as one array expression instead of a loop of 47 assignments: half the time per row (100,000 hourly rows
-- summed: 1.36 → 0.69 s), which readers pay for durations over long windows (p50/p95 from hourly and daily
-- rows). Same results, same null handling; histograms always have 47 buckets (domain/results/histogram.ts). No
-- function is called by name in the body, so TimescaleDB's refreshes (search_path = pg_catalog) still run it.
create or replace function result_hist_accum(state integer[], b integer[]) returns integer[]
language plpgsql immutable parallel safe as $$
begin
  if state is null then return b; end if;
  if b is null then return state; end if;
  return array[
    state[1] + b[1], state[2] + b[2], state[3] + b[3], state[4] + b[4], state[5] + b[5], state[6] + b[6],
    state[7] + b[7], state[8] + b[8], state[9] + b[9], state[10] + b[10], state[11] + b[11], state[12] + b[12],
    state[13] + b[13], state[14] + b[14], state[15] + b[15], state[16] + b[16], state[17] + b[17], state[18] + b[18],
    state[19] + b[19], state[20] + b[20], state[21] + b[21], state[22] + b[22], state[23] + b[23], state[24] + b[24],
    state[25] + b[25], state[26] + b[26], state[27] + b[27], state[28] + b[28], state[29] + b[29], state[30] + b[30],
    state[31] + b[31], state[32] + b[32], state[33] + b[33], state[34] + b[34], state[35] + b[35], state[36] + b[36],
    state[37] + b[37], state[38] + b[38], state[39] + b[39], state[40] + b[40], state[41] + b[41], state[42] + b[42],
    state[43] + b[43], state[44] + b[44], state[45] + b[45], state[46] + b[46], state[47] + b[47]
  ];
end $$;

-- migrate:down
create or replace function result_hist_accum(state integer[], b integer[]) returns integer[]
language plpgsql immutable parallel safe as $$
begin
  if state is null then return b; end if;
  if b is null then return state; end if;
  for i in 1 .. array_length(b, 1) loop
    state[i] := state[i] + b[i];
  end loop;
  return state;
end $$;
