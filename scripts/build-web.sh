#!/usr/bin/env bash
# Bundles the dashboard (web/) into web/dist. The API also builds it in memory when dist is missing or stale.
set -euo pipefail
cd "$(dirname "$0")/.."
bun run scripts/build-web.ts
