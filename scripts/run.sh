#!/usr/bin/env bash
# `make run`: starts credledger on embedded defaults.
#
# Without a kubeconfig (no KUBECONFIG in the environment), it starts the test Kubernetes API
# server as the embedded cluster (state and kubeconfig under ./var/kubeapi, namespace `demo`
# created), then `credledger serve` on ./var/credledger.db with the agent API server URL and
# CA pointing at that cluster. With KUBECONFIG set it serves against that cluster; the agent
# API server URL is then AGENT_APISERVER_URL (default: the kubeconfig's server) and the CA
# AGENT_CA_FILE (optional). Checkpoints and exports are signed with var/signing-key.pem, made
# on the first run (`credledger keygen`); auditors verify with var/signing-key.pub.pem. The
# newest checkpoints are published to var/witness.jsonl (the embedded cluster forgets everything
# at exit, so the witness is a file). Source Secrets are recorded by fingerprints under
# var/fingerprint-key, which `credledger serve` makes beside the database on its first start
# (docs/operations.md, "The fingerprint key").
# Extra arguments go to `credledger serve`. CREDLEDGER_LISTEN sets the listen address
# (default 127.0.0.1:7443); the example commands printed at the end dial it. Ctrl-C stops
# everything.
set -euo pipefail

build="${1:-build}"
shift || true
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
credledger="$build/service/credledger"
apiserver="$build/test/kubeapi/credledger-test-apiserver"
listen="${CREDLEDGER_LISTEN:-127.0.0.1:7443}"
mkdir -p var

pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Waits up to 30 s for file $1 to exist and be non-empty; fails naming what $2 is.
wait_for_file() {
  for _ in $(seq 300); do
    [ -s "$1" ] && return 0
    kill -0 "${pids[-1]}" 2>/dev/null || { echo "error: $2 exited; see its output above" >&2; exit 1; }
    sleep 0.1
  done
  echo "error: $2 did not start within 30 s" >&2
  exit 1
}

if [ ! -e var/signing-key.pem ]; then
  "$credledger" keygen --private-key var/signing-key.pem --public-key var/signing-key.pub.pem
fi
# Every local caller may call everything (docs/api.md, "Authorization"): a development host.
serve_args=(--db var/credledger.db --listen "$listen" --port-file var/credledger.port
            --signing-key var/signing-key.pem --witness file:var/witness.jsonl
            --insecure-allow-all)
# A log the witness does not vouch for (made before var/witness.jsonl was kept, or the witness
# was removed) starts only when adopted, with a reason a person gives (docs/audit.md, "Adopting
# a log"): CREDLEDGER_ADOPT_REASON="..." make run.
if [ -n "${CREDLEDGER_ADOPT_REASON:-}" ]; then
  serve_args+=(--adopt-log --reason "$CREDLEDGER_ADOPT_REASON")
elif [ -s var/credledger.db ] && [ ! -e var/witness.jsonl ]; then
  echo "var/credledger.db exists but its witness var/witness.jsonl does not: credledger will" >&2
  echo "refuse the log. If that is expected (an older ./var, or you removed the witness), adopt" >&2
  echo "it once: CREDLEDGER_ADOPT_REASON=\"<why>\" make run" >&2
fi
if [ -z "${KUBECONFIG:-}" ]; then
  rm -f var/kubeapi/port
  "$apiserver" --state-dir var/kubeapi --port-file var/kubeapi/port \
    --port "${KUBEAPI_PORT:-0}" --namespaces demo &
  pids+=($!)
  wait_for_file var/kubeapi/port "the embedded Kubernetes API server"
  port="$(cat var/kubeapi/port)"
  kubeconfig="$root/var/kubeapi/kubeconfig"
  serve_args+=(--kubeconfig "$kubeconfig" --agent-apiserver-url "https://127.0.0.1:$port"
               --agent-ca-file var/kubeapi/ca.crt)
  cluster="embedded test API server at https://127.0.0.1:$port"
else
  kubeconfig="$KUBECONFIG"
  server_url="$(sed -n 's/^ *server: *//p' "$kubeconfig" | head -n 1)"
  serve_args+=(--kubeconfig "$kubeconfig" --agent-apiserver-url "${AGENT_APISERVER_URL:-$server_url}")
  [ -n "${AGENT_CA_FILE:-}" ] && serve_args+=(--agent-ca-file "$AGENT_CA_FILE")
  cluster="the cluster of $kubeconfig"
fi

rm -f var/credledger.port
"$credledger" serve "${serve_args[@]}" "$@" &
pids+=($!)
wait_for_file var/credledger.port "credledger serve"

# The address the client commands dial: the listen address (loopback or a unix socket, as
# `serve` requires), with the bound port when it asked for port 0.
server="$listen"
case "$listen" in
  unix:* | unix-abstract:*) ;;
  *:0) server="${listen%:0}:$(tr -d '[:space:]' < var/credledger.port)" ;;
esac

cat <<TXT

credledger is serving gRPC on $server, writing to $cluster.
Event log: $root/var/credledger.db

Try, in another terminal (the commands dial \$CREDLEDGER_SERVER, default 127.0.0.1:7443):
  export CREDLEDGER_SERVER=$server
  $credledger target register demo/edge-1
  $credledger target get demo/edge-1
  kubectl --kubeconfig $kubeconfig -n demo get secrets,serviceaccounts,roles,rolebindings,targetreports
  $credledger target rotate demo/edge-1
  $credledger target confirm demo/edge-1 --revision 1.0.0<suffix shown by 'target get'>
  $credledger target revoke demo/edge-1
  $credledger target lift demo/edge-1
  $credledger target delete demo/edge-1
  $credledger target watch
  $credledger status demo/edge-1
  $credledger fleet --watch
  $credledger timeline demo/edge-1
  $credledger replay --as-of <RFC 3339 time or seq> --target demo/edge-1
  $credledger export --overwrite --output var/export.jsonl
  $credledger verify var/export.jsonl --public-key var/signing-key.pub.pem
Reports from an agent: docs/reports.md ("Trying the agent against make run").
Every command takes --help. Ctrl-C stops credledger$( [ -z "${KUBECONFIG:-}" ] && echo " and the embedded cluster").

TXT
wait -n "${pids[@]}"
