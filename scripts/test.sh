#!/usr/bin/env bash
# The full test suite: type-check, then every test (unit tests beside the code, integration tests in tests/).
# Needs PostgreSQL on 127.0.0.1:5432 and NATS JetStream on 127.0.0.1:4222 (see .ci/run for starting them).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-deps.sh
source scripts/timescale-cluster.sh

out=$(mktemp)
status=0
echo "== type-check"
if ! bunx tsc --noEmit -p .; then
  echo "type-check failed"
  status=1
fi
# The dashboard type-checks on its own: it may import only web/, schemas/ and the generated client.
if ! bunx tsc --noEmit -p web; then
  echo "type-check of web/ on its own failed"
  status=1
fi
# Layer rules (.dependency-cruiser.cjs): any violation fails the run.
echo "== import rules"
if ! npm run -s deps:check; then
  echo "import rules broken: each rule in .dependency-cruiser.cjs says why"
  status=1
fi
# The layer graph in docs/architecture.md is generated from the same imports: fails when it is stale.
echo "== layer graph"
if ! bun scripts/deps-graph.ts --check; then
  echo "docs/architecture.md's layer graph is stale: run \`npm run deps:graph\` and commit it"
  status=1
fi
# Unused files, exports, types and dependencies (knip.json): any finding fails. Deliberate ones go in knip.json's
# ignore lists with the reason in docs/decisions.md.
echo "== unused code (knip)"
if ! node_modules/.bin/knip --no-progress; then
  echo "unused code: delete it, drop the export, or list it in knip.json with its reason in docs/decisions.md"
  status=1
fi
# Test files run in TEST_PARALLEL worker processes (default 3 on this 2-core machine): much of a file's time is spent
# waiting on servers, timers and PostgreSQL. Measured on a slow 2-core machine: 2 workers 943 s with the cores 79 %
# busy, 3 workers 785 s at 95 % (docs/contributing.md). tests/timings.json (per-file durations) starts the slowest files
# first; refresh it with `bun test --timeout 60000 --parallel=3 --timings=tests/timings.json --update-timings`.
echo "== tests"
bun test --timeout 60000 --parallel="${TEST_PARALLEL:-3}" --timings=tests/timings.json "$@" 2>&1 | tee "$out"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
passed=$(grep -Eo '^ *[0-9]+ pass$' "$out" | tail -1 | grep -Eo '[0-9]+' || echo 0)
failed=$(grep -Eo '^ *[0-9]+ fail$' "$out" | tail -1 | grep -Eo '[0-9]+' || echo 0)
[ "$status" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
if [ "$failed" -ne 0 ]; then
  echo "== failed tests, with their files and output"
  # bun's own summary omits the file, and names a test whose hook timed out only "(unnamed)".
  awk -f scripts/failure-digest.awk "$out"
fi
rm -f "$out"
echo "tests: ${passed} passed, ${failed} failed"
exit "$status"
