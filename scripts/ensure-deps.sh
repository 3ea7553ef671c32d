#!/usr/bin/env bash
# Installs what Watchpost needs on a fresh clone: Bun (from npm) when missing, then the dependencies.
# Sourced by start.sh and test.sh: it exports PATH and leaves the caller's shell options as they were.
ensure_deps() {
  local -
  set -euo pipefail
  cd "$(dirname "${BASH_SOURCE[0]}")/.."
  export PATH="$HOME/.watchpost-bun/node_modules/.bin:$PATH"
  if ! command -v bun >/dev/null 2>&1; then
    echo "watchpost: installing Bun from npm" >&2
    npm install -g bun >/dev/null 2>&1 || npm install --prefix "$HOME/.watchpost-bun" bun >/dev/null
  fi
  # System tools the checks and tests use: ping (iputils), openssl (test certificates), Debian's Chromium
  # (browser checks and the dashboard's end-to-end tests) and kubectl (tests/infra/k8s.test.ts renders
  # infra/k8s with `kubectl kustomize`). Installed when missing and we are root.
  local missing=()
  command -v ping >/dev/null 2>&1 || missing+=(iputils-ping)
  command -v openssl >/dev/null 2>&1 || missing+=(openssl)
  [ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || missing+=(chromium)
  command -v kubectl >/dev/null 2>&1 || missing+=(kubectl)
  if [ ${#missing[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "watchpost: installing ${missing[*]}" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}") >/dev/null 2>&1 ||
      echo "watchpost: could not install ${missing[*]}" >&2
  fi
  if [ ! -d node_modules ] || [ package.json -nt node_modules ] || [ bun.lock -nt node_modules ]; then
    # Said first: on a cold machine the install takes a while, and its own output is silenced.
    echo "watchpost: installing dependencies (bun install)" >&2
    bun install --frozen-lockfile >/dev/null 2>&1 || bun install
    touch node_modules
  fi
}
ensure_deps
