#!/usr/bin/env bash
# Builds the libFuzzer targets of test/fuzz with clang (sanitizers on) into a build folder of
# their own and runs each for FUZZ_SECONDS seconds (default 60) from its seed corpus in
# test/fuzz/corpus/<name>. New inputs are kept in <build>/corpus/<name>, so later runs go on
# from them; an input that breaks a property is saved in <build>/crashes/<name>/ and the
# script exits 1 naming it. Reproduce with: <build>/test/fuzz/<name>_fuzz <saved input>.
#
# Usage: scripts/fuzz.sh [build folder, default build-fuzz] [target names...]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build-fuzz}"
shift || true
seconds="${FUZZ_SECONDS:-60}"
names=("$@")
if [ "${#names[@]}" -eq 0 ]; then
  names=(kubeconfig known_hosts target_report event_codec export_verify)
fi

CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCREDLEDGER_FUZZ=ON >/dev/null
cmake --build "$build" -j "$(nproc)" --target "${names[@]/%/_fuzz}"

failed=0
for name in "${names[@]}"; do
  corpus="$build/corpus/$name"
  crashes="$build/crashes/$name"
  log="$build/fuzz-$name.log"
  mkdir -p "$corpus" "$crashes"
  if "$build/test/fuzz/${name}_fuzz" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix="$crashes/" \
      "$corpus" "test/fuzz/corpus/$name" >"$log" 2>&1; then
    runs=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
    echo "fuzz $name: ${runs:-?} inputs in ${seconds}s, no property broken"
  else
    failed=1
    echo "fuzz $name: FAILED; input saved in $crashes/ (log $log):"
    grep -E -A30 'ERROR|fuzz property broken|deadly signal' "$log" | head -60
  fi
done
exit "$failed"
