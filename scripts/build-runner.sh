#!/usr/bin/env bash
# Builds the self-hosted runner as standalone executables (bun build --compile, with bytecode, so
# --format=esm): dist/runner-linux-x64 and dist/runner-linux-arm64.
# Cross-compiling fetches the target's Bun runtime once (from the npm registry); --host-only builds
# just this machine's architecture. DIST_DIR overrides the output folder. The images in
# infra/runner/ build the same way.
set -euo pipefail
cd "$(dirname "$0")/.."
dist="${DIST_DIR:-dist}"
mkdir -p "$dist"

targets=(x64 arm64)
if [ "${1:-}" = "--host-only" ]; then
  case "$(uname -m)" in
    x86_64) targets=(x64) ;;
    aarch64 | arm64) targets=(arm64) ;;
    *) echo "unsupported host architecture $(uname -m)" >&2; exit 1 ;;
  esac
fi

status=0
for arch in "${targets[@]}"; do
  out="${dist}/runner-linux-${arch}"
  echo "== ${out}"
  if bun build runner/main.ts --compile --bytecode --format=esm --minify --sourcemap --target="bun-linux-${arch}" --outfile "${out}"; then
    ls -l "${out}"
  else
    echo "building ${out} failed (cross-compiling needs to fetch bun-linux-${arch}; try --host-only offline)" >&2
    status=1
  fi
done
exit "$status"
