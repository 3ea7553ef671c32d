#!/usr/bin/env bash
# Settings of Bun's runtime that must be in the environment before Bun starts (JavaScriptCore and the allocator read
# them once, at start). Sourced by start.sh and by bench/scale.ts, which starts the all-in-one the same way; the service image sets
# the same in its ENV (infra/service/Dockerfile). Each is exported only when the caller has not set it, and only when
# this Bun accepts it: an option JavaScriptCore does not know stops Bun at start, and these options are not a stable
# interface of Bun.
#
# BUN_JSC_heapGrowthMaxIncrease=1: on a machine with 16 GB of RAM or more, Bun lets each JavaScript heap grow to
# about three times what its last full collection left before it collects fully again (1 + this option, 2 in Bun;
# below 16 GB, twice). Most of the all-in-one's memory above its live state is that room, filled by the garbage of
# every check: 1 gives the heap the room it has on a smaller machine. At 100,000 monitors it saved about 100 MB of
# PSS for no CPU per check that the bench resolves (docs/performance.md, "Memory per monitor").
#
# MIMALLOC_PURGE_DELAY=-1: Bun's allocator (mimalloc) keeps the memory it has freed instead of handing it back to the
# system a second later. Handed back, it was taken again at once: the JavaScript heaps free and re-allocate their
# blocks with every collection, and each time their pages were returned (a helper thread, mi-scavenger) and faulted
# back in (another, JSCWarmUp, and the threads themselves). That churn cost a quarter (20,000 monitors) to nearly half
# (two cores saturated) of Bun's CPU per check; kept, Bun's PSS is its high-water mark, 70-100 MB more at 20,000
# monitors and ~170 MB more at 100,000 (docs/performance.md, "The allocator's churn"). 1000 gives Bun's own behaviour.
watchpost_runtime_env() {
  local setting name value
  for setting in BUN_JSC_heapGrowthMaxIncrease=1 MIMALLOC_PURGE_DELAY=-1; do
    name=${setting%%=*}
    value=${setting#*=}
    [ -n "${!name+set}" ] && continue
    if env "$name=$value" bun -e 0 >/dev/null 2>&1; then export "$name=$value"; fi
  done
}
watchpost_runtime_env
unset -f watchpost_runtime_env
