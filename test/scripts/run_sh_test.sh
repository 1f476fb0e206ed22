#!/usr/bin/env bash
# scripts/run.sh with stand-in binaries: the example commands it prints must dial the address
# credledger listens on. Regression: with CREDLEDGER_LISTEN set to another address, the
# printed commands carried no --server or CREDLEDGER_SERVER and dialled the default.
#
# Usage: run_sh_test.sh <path of scripts/run.sh>
set -euo pipefail

run_sh="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# run.sh works in the folder above its own: a copy in $work keeps var/ out of the tree.
mkdir -p "$work/scripts" "$work/build/service"
cp "$run_sh" "$work/scripts/run.sh"
# The stand-in credledger: keygen makes the key files; serve writes port 45678 to its
# --port-file (as the real one does once listening) and exits.
cat > "$work/build/service/credledger" <<'SH'
#!/usr/bin/env bash
case "$1" in
  keygen) : > var/signing-key.pem; : > var/signing-key.pub.pem ;;
  serve)
    while [ $# -gt 0 ]; do
      [ "$1" = --port-file ] && echo 45678 > "$2"
      shift
    done ;;
esac
SH
chmod +x "$work/build/service/credledger"
# A kubeconfig, so that run.sh does not start the embedded API server.
printf 'clusters:\n- cluster:\n    server: https://127.0.0.1:6443\n' > "$work/kubeconfig"

failures=0
# Runs run.sh with CREDLEDGER_LISTEN=$1 ("" for unset) and checks that it prints $2.
expect_printed() {
  local output
  if [ -n "$1" ]; then
    output="$(KUBECONFIG="$work/kubeconfig" CREDLEDGER_LISTEN="$1" bash "$work/scripts/run.sh" build)"
  else
    output="$(env -u CREDLEDGER_LISTEN KUBECONFIG="$work/kubeconfig" bash "$work/scripts/run.sh" build)"
  fi
  if ! grep -qxF "  $2" <<<"$output"; then
    echo "FAIL: CREDLEDGER_LISTEN=\"$1\": expected the line \"  $2\" in:" >&2
    echo "$output" >&2
    failures=$((failures + 1))
  fi
}

expect_printed "" "export CREDLEDGER_SERVER=127.0.0.1:7443"
expect_printed "127.0.0.2:7555" "export CREDLEDGER_SERVER=127.0.0.2:7555"
expect_printed "127.0.0.1:0" "export CREDLEDGER_SERVER=127.0.0.1:45678"
expect_printed "unix:/tmp/credledger.sock" "export CREDLEDGER_SERVER=unix:/tmp/credledger.sock"

[ "$failures" -eq 0 ] && echo "PASS"
exit "$failures"
