#!/usr/bin/env bash
# Starts Watchpost in all-in-one mode (embedded PostgreSQL, in-process bus) after installing what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-deps.sh
source scripts/runtime-env.sh
exec bun run scripts/start.ts
