#!/usr/bin/env bash
# `make bench`: runs every benchmark under test/bench at full size (fleet_bench, 100,000
# Targets, takes about 70 minutes and 7 GiB of memory on 2 cores; docs/performance.md,
# "Fleet scale").
set -euo pipefail
build="${1:-build}"
for bench in "$build"/test/bench/*_bench; do
  echo "== $(basename "$bench")"
  "$bench" --benchmark_color=false
done
