#!/usr/bin/env bash
# Sourced by scripts/test.sh: when a TimescaleDB build for this machine's PostgreSQL is at hand, start (or reuse) a
# throwaway cluster with the extension preloaded and export TIMESCALE_TEST_URL, so db/timescale/ runs on the real
# thing (policies, compression, retention). The package is found at $TIMESCALEDB_PACKAGE_DIR or ../shared/timescaledb
# beside the checkout (CI has it). Without it, the TimescaleDB tests use the in-process PGlite build instead.
ts_pkg=${TIMESCALEDB_PACKAGE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/shared/timescaledb}
ts_port=${TIMESCALE_TEST_PORT:-5439}
ts_dir=${TIMESCALE_TEST_DIR:-${TMPDIR:-/tmp}/watchpost-timescale}
if [ -z "${TIMESCALE_TEST_URL:-}" ] && [ -x "$ts_pkg/start-cluster.sh" ]; then
  if pg_isready -h 127.0.0.1 -p "$ts_port" -q 2>/dev/null && "$ts_pkg/install.sh" >/dev/null 2>&1; then
    export TIMESCALE_TEST_URL="postgres://postgres@127.0.0.1:$ts_port/postgres"
  elif url=$("$ts_pkg/start-cluster.sh" "$ts_dir" "$ts_port" 2>"$ts_dir.log"); then
    export TIMESCALE_TEST_URL=$url
  else
    echo "watchpost: TimescaleDB cluster did not start (see $ts_dir.log and $ts_dir/postgres.log)" >&2
  fi
fi
[ -n "${TIMESCALE_TEST_URL:-}" ] && echo "== TimescaleDB tests on $TIMESCALE_TEST_URL"
true
