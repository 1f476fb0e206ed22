#!/usr/bin/env bash
# Builds the libFuzzer targets of test/fuzz with clang (sanitizers on) into a build folder of
# their own and runs each for FUZZ_SECONDS seconds (default 60) from its seed corpus in
# test/fuzz/corpus/<name>. New inputs are kept in <build>/corpus/<name>, so later runs go on
# from them; an input that breaks a property is saved in <build>/crashes/<name>/ and the
# script exits 1 naming it. Reproduce with: <build>/test/fuzz/<name>_fuzz <saved input>.
#
# Usage: scripts/fuzz.sh [build folder, default build-fuzz] [target names...]
# Target names: kubeconfig, known_hosts, target_report, event_codec, export_verify (with or
# without the _fuzz suffix); none: all of them.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build-fuzz}"
shift || true
seconds="${FUZZ_SECONDS:-60}"
all=(kubeconfig known_hosts target_report event_codec export_verify)
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "error: FUZZ_SECONDS: expected a whole number of seconds (1 or more), got \"$seconds\"" >&2
  exit 2
fi
names=()
for name in "$@"; do
  name="${name%_fuzz}"  # kubeconfig and kubeconfig_fuzz both name the target
  if [[ " ${all[*]} " != *" $name "* ]]; then
    echo "error: unknown fuzz target \"$name\"; the targets: ${all[*]}" >&2
    exit 2
  fi
  names+=("$name")
done
if [ "${#names[@]}" -eq 0 ]; then
  names=("${all[@]}")
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
    echo "fuzz $name: FAILED; input saved in $crashes/ (log $log);" \
      "reproduce with $build/test/fuzz/${name}_fuzz <that file>:"
    grep -E -A30 'ERROR|fuzz property broken|deadly signal' "$log" | head -60 || true
  fi
done
exit "$failed"
