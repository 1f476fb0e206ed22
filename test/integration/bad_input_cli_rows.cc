#include "test/integration/bad_input_cli_rows.h"

#include <string>
#include <vector>

#include "test/integration/bad_input_cli_row_builders.h"

namespace credledger::testing {
namespace {

void AddCliDispatcherAndServerRows(std::vector<BadInputCliRow>& rows) {
  rows.push_back(CliOfflineRow({}, 2, {"no command given"}));
  rows.push_back(CliOfflineRow({"bogus"}, 2, {"unknown command \"bogus\""}));
  rows.push_back(CliOfflineRow({"target"}, 2, {"'target' needs a command"}));
  rows.push_back(CliOfflineRow({"target", "bogus"}, 2, {"unknown command \"target bogus\""}));
  rows.push_back(CliOfflineRow({"target\xff"}, 2, {"argument 1 is not valid UTF-8"}));
  rows.push_back(CliOfflineRow({"--server", kCliServer, "target", "list"}, 2,
                               {"flags go after the subcommand"}));
  // serve: the test adds --listen 127.0.0.1:0 and (unless the row names a --store) a --db
  // that cannot be created first, so that a row accepted by mistake fails instead of serving.
  rows.push_back(CliOfflineRow({"serve", "--bogus"}, 2, {"unknown flag --bogus"}));
  rows.push_back(CliOfflineRow({"serve", "extra"}, 2, {"expected no arguments, got 1 argument"}));
  rows.push_back(CliOfflineRow({"serve", "--lease-duration", "20s"}, 2,
                               {"--lease-duration: needs --lease-name"}));
  rows.push_back(CliOfflineRow({"serve", "--lease-identity", "replica-a"}, 2,
                               {"--lease-identity: needs --lease-name"}));
  rows.push_back(CliOfflineRow({"serve", "--synchronous", "bogus"}, 2,
                               {"--synchronous", "must be one of full, normal"}));
  rows.push_back(CliOfflineRow({"serve", "--agent-token-ttl", "5x"}, 2,
                               {"--agent-token-ttl", "expected a duration"}));
  rows.push_back(CliOfflineRow({"serve", "--agent-token-ttl", "5m"}, 2,
                               {"--agent-token-ttl: 5m is below the minimum of 10m"}));
  rows.push_back(
      CliOfflineRow({"serve", "--snapshot-every", "-1"}, 2, {"--snapshot-every: -1 is negative"}));
  rows.push_back(
      CliOfflineRow({"serve", "--kube-qps", "abc"}, 2, {"--kube-qps", "expected a number"}));
  rows.push_back(CliOfflineRow({"serve", "--liveness-flush-interval", "2m"}, 2,
                               {"--liveness-flush-interval: 2m is outside 100ms..1m"}));
  rows.push_back(CliOfflineRow({"serve", "--report-max-bytes", "100"}, 2,
                               {"--report-max-bytes: 100 is outside 1024..1572864"}));
  rows.push_back(CliOfflineRow({"serve", "--report-max-bytes", "2MiB"}, 2,
                               {"--report-max-bytes", "expected"}));
  rows.push_back(CliOfflineRow({"serve", "--report-min-interval", "-1s"}, 2,
                               {"--report-min-interval: -1s is below the minimum of 0"}));
  rows.push_back(
      CliOfflineRow({"serve", "--report-min-interval", "10m"}, 2,
                    {"--report-min-interval: 10m is not shorter than --report-stale-after (10m)"}));
  rows.push_back(CliOfflineRow({"serve", "--space-reserve", "-1"}, 2,
                               {"--space-reserve: -1 is negative; 0 disables the reserve"}));
  rows.push_back(CliOfflineRow({"serve", "--listen", "0.0.0.0:0"}, 2,
                               {"--listen: \"0.0.0.0:0\" is not a loopback address"}));
  rows.push_back(CliOfflineRow({"serve", "--db", ""}, 2, {"--db: required"}));
  rows.push_back(CliOfflineRow({"serve", "--tls-cert", CliInput("not-a-key.pem")}, 2,
                               {"--tls-key: required with --tls-cert"}));
  rows.push_back(CliOfflineRow({"serve", "--http-port-file", CliInput("port")}, 2,
                               {"--http-port-file: requires --http-listen"}));
  rows.push_back(CliOfflineRow({"serve", "--port-file", CliInput("a-folder")}, 2,
                               {"--port-file: ", "a-folder\" names a directory"}));
  rows.push_back(CliOfflineRow({"serve", "--port-file", CliInput("missing/")}, 2,
                               {"--port-file: ", "missing/\" names a directory"}));
  rows.push_back(CliOfflineRow({"serve", "--port-file", CliInput("missing/port")}, 2,
                               {"--port-file: ", "missing\" is not an existing folder"}));
  rows.push_back(CliOfflineRow(
      {"serve", "--http-listen", "127.0.0.1:0", "--http-port-file", CliInput("a-folder")}, 2,
      {"--http-port-file: ", "names a directory"}));
  rows.push_back(
      CliOfflineRow({"serve", "--lease-name", "l", "--lease-duration", "1s"}, 2,
                    {"--lease-duration: 1s is not a whole number of seconds from 2s to 1h"}));
  rows.push_back(CliOfflineRow({"serve", "--lease-name", "l", "--lease-duration", "2500ms"}, 2,
                               {"--lease-duration: 2.5s is not a whole number of seconds"}));
  rows.push_back(CliOfflineRow({"serve", "--lease-name", "Bad_Name"}, 2,
                               {"--lease-name: \"Bad_Name\"", kCliNotSubdomain}));
  rows.push_back(CliOfflineRow({"serve", "--lease-name", "l", "--lease-namespace", "Ops"}, 2,
                               {"--lease-namespace: \"Ops\"", kCliNotLabel}));
  rows.push_back(CliOfflineRow({"serve", "--witness", "/var/witness.jsonl"}, 2,
                               {"--witness: \"/var/witness.jsonl\": unknown kind of witness",
                                "expected file:<path> or kubernetes:<namespace>/<configmap>"}));
  rows.push_back(CliOfflineRow({"serve", "--witness", "kubernetes:Ops/w"}, 2,
                               {"--witness: \"kubernetes:Ops/w\"", kCliNotLabel}));
  rows.push_back(CliOfflineRow({"serve", "--witness", "file:w.jsonl"}, 2,
                               {"--witness: requires --signing-key"}));
  rows.push_back(CliOfflineRow(
      {"serve", "--insecure-allow-all", "--authorization-policy", "policy.yaml"}, 2,
      {"--insecure-allow-all: conflicts with --authorization-policy; give one of them"}));
  rows.push_back(
      CliOfflineRow({"serve", "--max-streams", "0"}, 2, {"--max-streams: 0 is outside 1..100000"}));
  rows.push_back(CliOfflineRow({"serve", "--max-streams-per-caller", "-3"}, 2,
                               {"--max-streams-per-caller: -3 is outside 1..100000"}));
  rows.push_back(CliOfflineRow({"serve", "--watch-queue-bytes", "-1"}, 2,
                               {"--watch-queue-bytes: -1 is outside 1..1073741824"}));
  rows.push_back(
      CliOfflineRow({"serve", "--call-threads", "0"}, 2, {"--call-threads: 0 is outside 1..256"}));
  rows.push_back(CliOfflineRow({"serve", "--remote-call-threads", "257"}, 2,
                               {"--remote-call-threads: 257 is outside 1..256"}));
  rows.push_back(CliOfflineRow({"serve", "--witness-interval", "500ms"}, 2,
                               {"--witness-interval: 500ms is below the minimum of 1s"}));
  rows.push_back(CliOfflineRow({"serve", "--adopt-log"}, 2,
                               {"--reason: required: say why the log is adopted"}));
  rows.push_back(CliOfflineRow({"serve", "--adopt-log", "--reason", "line\nbreak"}, 2,
                               {"--reason: must be UTF-8 text without control characters"}));
  rows.push_back(
      CliOfflineRow({"serve", "--reason", "restored"}, 2, {"--reason: requires --adopt-log"}));
  rows.push_back(
      CliOfflineRow({"serve", "--adopt-log", "--reason", "restored", "--adopted-by", "jane doe"}, 2,
                    {"--adopted-by"}));
  rows.push_back(CliOfflineRow({"serve", "--authorization-policy", CliInput("invalid.yaml")}, 1,
                               {"--authorization-policy", "not valid YAML"}));
  rows.push_back(CliOfflineRow(
      {"serve", "--authorization-policy", CliInput("policy-unknown-rpc.yaml")}, 1,
      {"--authorization-policy", "identities[0].rpcs[0]", "TargetService has no method Bogus"}));
  rows.push_back(CliOfflineRow({"serve", "--authorization-policy", CliInput("missing.yaml")}, 1,
                               {"--authorization-policy", "No such file or directory"}));
  rows.push_back(CliOfflineRow({"serve", "--kubeconfig", CliInput("kubeconfig-invalid.yaml")}, 1,
                               {"kubeconfig", "not valid YAML"}));
  rows.push_back(CliOfflineRow({"serve", "--signing-key", CliInput("not-a-key.pem")}, 1,
                               {"--signing-key", "not an unencrypted PEM"}));
  rows.push_back(CliOfflineRow({"serve", "--fingerprint-key", CliInput("a-folder")}, 2,
                               {"--fingerprint-key: ", "a-folder\" names a directory"}));
  rows.push_back(CliOfflineRow({"keygen", "--fingerprint-key", CliInput("missing/key")}, 2,
                               {"--fingerprint-key: ", "missing\" is not an existing folder"}));
  rows.push_back(CliOfflineRow({"serve", "--agent-ca-file", CliInput("missing.pem")}, 1,
                               {"--agent-ca-file: cannot read"}));
  rows.push_back(CliOfflineRow({"migrate", "--db", ""}, 2, {"--db: required"}));
  rows.push_back(CliOfflineRow({"migrate", "--db", CliInput("a-folder")}, 1,
                               {"unable to open database file"}));
  rows.push_back(CliOfflineRow({"migrate", "--db", CliInput("not-a-folder/credledger.db")}, 1,
                               {"--db: cannot create"}));
  rows.push_back(CliOfflineRow({"migrate", "extra"}, 2, {"expected no arguments, got 1 argument"}));
  rows.push_back(CliOfflineRow({"migrate", "--store", "host=127.0.0.1 port=1 dbname=log"}, 1,
                               {"UNAVAILABLE: --store postgresql://127.0.0.1:1/log: "}));
  rows.push_back(CliOfflineRow({"serve", "--store", "host=127.0.0.1 port=1 dbname=log",
                                "--fingerprint-key", CliInput("fingerprint-key")},
                               1, {"UNAVAILABLE: --store postgresql://127.0.0.1:1/log: "}));
  // agent: --once, so that a row accepted by mistake ends.
  const std::vector<std::string> agent = {
      "agent",         "--once", "--target-namespace", "demo",
      "--target-name", "edge-1", "--solar-kubeconfig", CliInput("kubeconfig-valid.yaml")};
  auto agent_with = [&](std::vector<std::string> more) {
    std::vector<std::string> args = agent;
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  rows.push_back(CliOfflineRow({"agent", "--once"}, 2, {"--solar-kubeconfig: required"}));
  rows.push_back(CliOfflineRow(agent_with({"--target-namespace", "Demo"}), 2,
                               {"--target-namespace", kCliNotLabel}));
  rows.push_back(CliOfflineRow(agent_with({"--target-name", CliRepeat(64)}), 2,
                               {"--target-name", "a DNS-1123 label has at most 63 bytes"}));
  rows.push_back(
      CliOfflineRow(agent_with({"--interval", "0s"}), 2, {"--interval: must be at least 1s"}));
  rows.push_back(
      CliOfflineRow(agent_with({"--interval", "1x"}), 2, {"--interval", "expected a duration"}));
  rows.push_back(CliOfflineRow(agent_with({"--kubeconfig", CliInput("kubeconfig-invalid.yaml")}), 1,
                               {"--kubeconfig", "not valid YAML"}));
  rows.push_back(
      CliOfflineRow(agent_with({"--kubeconfig", CliInput("kubeconfig-valid.yaml"),
                                "--solar-kubeconfig", CliInput("kubeconfig-invalid.yaml")}),
                    1, {"--solar-kubeconfig", "not valid YAML"}));
  rows.push_back(CliOfflineRow(agent_with({"--kubeconfig", CliInput("missing.yaml")}), 1,
                               {"--kubeconfig", "No such file or directory"}));
}

void AddCliTargetRows(std::vector<BadInputCliRow>& rows) {
  rows.push_back(CliClientRow({"target", "register", "demo/Edge_1"}, 1,
                              {"INVALID_ARGUMENT: name: \"Edge_1\"", kCliNotLabel}));
  rows.push_back(CliClientRow({"target", "register", "demo"}, 2,
                              {"expected <namespace>/<name>, got \"demo\""}));
  rows.push_back(CliClientRow({"target", "register", "demo/edge-1/x"}, 2,
                              {"expected <namespace>/<name>, got \"demo/edge-1/x\""}));
  rows.push_back(
      CliClientRow({"target", "register", absl::StrCat("demo/", CliRepeat(64))}, 1,
                   {"INVALID_ARGUMENT: name: ", "a DNS-1123 label has at most 63 bytes"}));
  rows.push_back(CliClientRow({"target", "register", absl::StrCat("demo/", CliRepeat(1 << 20))}, 1,
                              {"INVALID_ARGUMENT: name: ", "(1048576 bytes) is too long"}));
  rows.push_back(
      CliClientRow({"target", "register", "demo/edge-1", "--uid", "NOTUUID"}, 1,
                   {"INVALID_ARGUMENT: uid: \"NOTUUID\" is not a lowercase RFC 4122 UUID"}));
  rows.push_back(CliClientRow({"target", "register", "demo/edge-1", "--request-id", ""}, 2,
                              {"--request-id is given but empty"}));
  rows.push_back(CliClientRow({"target", "register", "demo/edge-1", "--request-id", "a b"}, 2,
                              {"--request-id: only printable ASCII without spaces"}));
  rows.push_back(CliClientRow({"target", "register", "demo/edge-1", "--request-id", CliRepeat(129)},
                              2, {"--request-id: 129 bytes; at most 128 allowed"}));
  rows.push_back(CliClientRow({"target", "register", "demo/edge-1", "--request-id", "credledger:x"},
                              2, {"--request-id: the prefix \"credledger:\" is reserved"}));
  rows.push_back(CliClientRow({"target", "register", "/"}, 2,
                              {"expected <namespace>/<name>, got \"/\"", "neither part"}));
  rows.push_back(CliClientRow({"target", "register", "/edge-1"}, 2,
                              {"expected <namespace>/<name>, got \"/edge-1\""}));
  // A control byte or line break in the argument is shown escaped, not sent to the terminal.
  rows.push_back(CliClientRow({"target", "register", "demo\x1b[2J\nedge-1"}, 2,
                              {"expected <namespace>/<name>, got \"demo\\x1b[2J\\nedge-1\""}));
  rows.push_back(
      CliClientRow({"target", "register", std::string(300, 'a')}, 2, {"...\" (300 bytes)"}));
  rows.push_back(
      CliClientRow({"target", "register", "demo/edge-1", "--bogus"}, 2, {"unknown flag --bogus"}));
  rows.push_back(CliClientRow({"target", "delete", "demo/"}, 2,
                              {"expected <namespace>/<name>, got \"demo/\""}));
  rows.push_back(CliClientRow({"target", "rotate", "demo/edge-1", "--value", "a b"}, 1,
                              {"INVALID_ARGUMENT: value: only printable ASCII without spaces"}));
  rows.push_back(CliClientRow({"target", "rotate", "demo/edge-1", "--value", ""}, 2,
                              {"--value is given but empty; leave it out for the default"}));
  rows.push_back(CliClientRow({"target", "confirm", "demo/edge-1", "--revision", ""}, 2,
                              {"--revision is given but empty; it is required: give a value"}));
  rows.push_back(CliClientRow({"target", "revoke", "demo/edge-1", "--reason", CliRepeat(1025)}, 1,
                              {"INVALID_ARGUMENT: reason: 1025 bytes; at most 1024 allowed"}));
  rows.push_back(
      CliClientRow({"target", "lift", "demo/EDGE"}, 1, {"INVALID_ARGUMENT: name: ", kCliNotLabel}));
  // A required flag left out is refused before anything is sent, naming the flag.
  rows.push_back(CliClientRow({"target", "confirm", "demo/edge-1"}, 2, {"--revision: required"}));
  rows.push_back(CliClientRow({"target", "confirm", "demo/edge-1", "--revision", "1.0 -x"}, 1,
                              {"INVALID_ARGUMENT: revision: only printable ASCII without spaces"}));
  rows.push_back(
      CliClientRow({"target", "get"}, 2, {"expected <namespace>/<name>, got 0 arguments"}));
  rows.push_back(CliClientRow({"target", "get", "demo/edge-1", "--output", "yaml"}, 2,
                              {"--output", "must be one of text, json"}));
  rows.push_back(CliClientRow({"target", "get", "demo/edge-1", "--as", "a b"}, 2,
                              {"--as: only printable ASCII without spaces"}));
  rows.push_back(CliClientRow({"target", "get", "demo/edge-1", "--as", ""}, 2,
                              {"--as: must not be empty; leave the flag out"}));
  for (const char* tls_flag : {"--tls-ca", "--tls-cert", "--tls-key"}) {
    rows.push_back(CliClientRow({"target", "get", "demo/edge-1", tls_flag, ""}, 2,
                                {tls_flag, ": must not be empty; leave the flag out"}));
  }
  rows.push_back(
      CliOfflineRow({"target", "get", "demo/edge-1", "--server", ""}, 2, {"--server: required"}));
  for (const char* server : {"localhost:99999", "host:", "host:abc", ":::"}) {
    rows.push_back(CliOfflineRow(
        {"target", "get", "demo/edge-1", "--server", server}, 2,
        {"--server: ", "a port is a number 1-65535", "expected <host>:<port>, [<IPv6>]:<port>"}));
  }
  rows.push_back(CliOfflineRow({"target", "get", "demo/edge-1", "--server", "nohost"}, 2,
                               {"--server: \"nohost\" has no port"}));
  rows.push_back(CliOfflineRow({"target", "get", "demo/edge-1", "--server", "unix:"}, 2,
                               {"--server: \"unix:\" names no socket path"}));
  rows.push_back(CliOfflineRow({"target", "get", "demo/edge-1", "--server", "::1:7443"}, 2,
                               {"--server: ", "an IPv6 address goes in brackets"}));
  rows.push_back(CliClientRow(
      {"target", "get", "demo/edge-1", "--tls-cert", CliInput("not-a-key.pem")}, 2, {"--tls-key"}));
  rows.push_back(CliClientRow({"target", "list", "--namespace", "Bad"}, 1,
                              {"INVALID_ARGUMENT: namespace: \"Bad\"", kCliNotLabel}));
  rows.push_back(CliClientRow({"target", "list", "--include-finalized=maybe"}, 2,
                              {"--include-finalized", "expected true or false"}));
  rows.push_back(CliClientRow({"target", "watch", "--after-seq", "-1"}, 2,
                              {"--after-seq: must be 0 or more"}));
  rows.push_back(CliClientRow({"target", "watch", "--after-seq", "abc"}, 2,
                              {"--after-seq", "expected an integer"}));
  rows.push_back(CliClientRow(
      {"target", "watch", "--after-seq", "99999999999999999999"}, 2,
      {"--after-seq", "expected an integer from -9223372036854775808 to 9223372036854775807"}));
  rows.push_back(CliClientRow({"target", "watch", "--namespace", "a b"}, 1,
                              {"INVALID_ARGUMENT: namespace: \"a b\"", kCliNotLabel}));
  rows.push_back(
      CliClientRow({"status", "demo/Edge_1"}, 1, {"INVALID_ARGUMENT: name: ", kCliNotLabel}));
  rows.push_back(
      CliClientRow({"status", "a/b/c"}, 2, {"expected <namespace>/<name>, got \"a/b/c\""}));
  rows.push_back(CliClientRow({"fleet", "--condition", "Reporting"}, 2,
                              {"--condition: expected <Type>=<Status>"}));
  rows.push_back(CliClientRow({"fleet", "--condition", "Bogus=True"}, 1,
                              {"INVALID_ARGUMENT: condition_type: \"Bogus\" is not one of"}));
  rows.push_back(CliClientRow({"fleet", "--watch", "--after-seq", "-1"}, 2,
                              {"--after-seq: must be 0 or more"}));
  rows.push_back(CliClientRow({"fleet", "--watch", "--condition", "Reporting=True"}, 2,
                              {"--condition cannot be combined with --watch"}));
  rows.push_back(CliClientRow({"fleet", "--namespace", CliRepeat(64)}, 1,
                              {"INVALID_ARGUMENT: namespace: ", "at most 63 bytes"}));
}

void AddCliAuditAndLocalRows(std::vector<BadInputCliRow>& rows) {
  rows.push_back(
      CliClientRow({"export", "--from", "notatime"}, 2, {"--from: expected an RFC 3339 time"}));
  rows.push_back(CliClientRow({"export", "--to", "2026-02-30T00:00:00Z"}, 2,
                              {"--to: expected an RFC 3339 time"}));
  rows.push_back(CliClientRow({"export", "--format", "xml"}, 2,
                              {"--format", "must be one of jsonl, cloudevents, csv"}));
  rows.push_back(CliClientRow({"export", "--type", "Bogus"}, 1,
                              {"INVALID_ARGUMENT: filter.types[0]: unknown event type"}));
  rows.push_back(CliClientRow({"export", "--target", "demo"}, 2,
                              {"--target: expected <namespace>/<name>, got \"demo\""}));
  rows.push_back(
      CliClientRow({"export", "--after-seq", "-1"}, 2, {"--after-seq: must be 0 or more"}));
  rows.push_back(
      CliClientRow({"export", "--until-seq", "-1"}, 2, {"--until-seq: must be 0 or more"}));
  rows.push_back(CliClientRow({"export", "--until-seq", "1", "--after-seq", "2"}, 2,
                              {"--until-seq: 1 is below --after-seq 2"}));
  rows.push_back(
      CliClientRow({"export", "--stream", "target/demo/edge 1"}, 1,
                   {"INVALID_ARGUMENT: filter.stream: only printable ASCII without spaces"}));
  rows.push_back(CliClientRow({"export", "--stream", "x", "--target", "demo/edge-1"}, 2,
                              {"--stream, --stream-prefix and --target exclude each other"}));
  rows.push_back(CliClientRow({"export", "--output", CliInput("not-a-folder/export.jsonl")}, 2,
                              {"--output: ", "not-a-folder\" is not an existing folder"}));
  rows.push_back(CliClientRow({"export", "--output", ""}, 2,
                              {"--output: must not be empty; leave the flag out"}));
  rows.push_back(CliClientRow({"export", "--output", CliInput("a-folder")}, 2,
                              {"--output: ", "a-folder\" names a directory"}));
  rows.push_back(CliClientRow({"export", "--output", CliInput("garbage.jsonl")}, 1,
                              {"--output: ", "garbage.jsonl\" exists; pass --overwrite"}));
  rows.push_back(
      CliOfflineRow({"verify", CliInput("garbage.jsonl")}, 2, {"--public-key: required"}));
  rows.push_back({{"verify", CliInput("garbage.jsonl"), "--public-key", CliInput("public-key.pem")},
                  1,
                  {},
                  "FAILED: malformed line: line 1"});
  rows.push_back({{"verify", CliInput("empty.jsonl"), "--public-key", CliInput("public-key.pem")},
                  1,
                  {},
                  "FAILED: truncated tail"});
  rows.push_back(CliOfflineRow(
      {"verify", CliInput("garbage.jsonl"), "--public-key", CliInput("not-a-key.pem")}, 1,
      {"not-a-key.pem\": public key: not a PEM \"PUBLIC KEY\""}));
  rows.push_back(
      CliOfflineRow({"verify", CliInput("a-folder"), "--public-key", CliInput("public-key.pem")}, 1,
                    {"is a directory, not an export"}));
  rows.push_back(CliOfflineRow(
      {"verify", CliInput("missing.jsonl"), "--public-key", CliInput("public-key.pem")}, 1,
      {"missing.jsonl", "No such file or directory"}));
  rows.push_back(CliOfflineRow(
      {"verify", "--db", CliInput("garbage.jsonl"), "--public-key", CliInput("public-key.pem")}, 1,
      {"--db ", "file is not a database"}));
  rows.push_back(CliOfflineRow(
      {"verify", "--db", CliInput("missing.db"), "--public-key", CliInput("public-key.pem")}, 1,
      {"--db ", "no such database file"}));
  rows.push_back(CliOfflineRow({"verify", CliInput("garbage.jsonl"), "--public-key",
                                CliInput("public-key.pem"), "--min-seq", "-1"},
                               2, {"--min-seq: must be 0 or more"}));
  rows.push_back(CliClientRow({"replay"}, 2, {"--as-of: required"}));
  rows.push_back(CliClientRow({"replay", "--as-of", "yesterday"}, 2,
                              {"--as-of: expected a seq (digits only) or an RFC 3339 time"}));
  rows.push_back(CliClientRow({"replay", "--as-of", "1", "--target", "demo/Edge"}, 1,
                              {"INVALID_ARGUMENT: name: \"Edge\"", kCliNotLabel}));
  rows.push_back(CliClientRow({"replay", "--as-of", "99999"}, 1,
                              {"INVALID_ARGUMENT: as_of.seq: 99999 is outside 0.."}));
  rows.push_back(
      CliClientRow({"replay", "--as-of", "1", "--target", "demo/edge-1", "--namespace", "demo"}, 2,
                   {"--target and --namespace exclude each other"}));
  rows.push_back(CliOfflineRow({"replay", "--as-of", "1", "--db", CliInput("missing.db")}, 1,
                               {"--db ", "no such database file"}));
  rows.push_back(
      CliClientRow({"timeline", "demo/Edge_1"}, 1, {"INVALID_ARGUMENT: name: ", kCliNotLabel}));
  rows.push_back(CliClientRow({"timeline", "demo/edge-1", "--limit", "10001"}, 1,
                              {"INVALID_ARGUMENT: limit: must be 0..10000"}));
  rows.push_back(CliClientRow({"timeline", "demo/edge-1", "--limit", "-1"}, 2,
                              {"--limit: must be 1 or more"}));
  rows.push_back(CliClientRow({"timeline", "--identity", "Bad_Name"}, 1,
                              {"INVALID_ARGUMENT: identity: \"Bad_Name\"", kCliNotSubdomain}));
  rows.push_back(
      CliClientRow({"timeline"}, 2, {"give a Target <namespace>/<name> or --identity NAME"}));
  rows.push_back(CliClientRow({"diff", "--from", "x", "--to", "1"}, 2,
                              {"--from: expected a seq (digits only) or an RFC 3339 time"}));
  rows.push_back(CliClientRow({"diff", "--from", "1"}, 2, {"--to: required"}));
  rows.push_back(CliClientRow({"diff", "--from", "2", "--to", "1"}, 1,
                              {"INVALID_ARGUMENT: to: seq 1 is before from seq 2"}));
  rows.push_back(CliClientRow({"valid-credentials"}, 2, {"--at: required"}));
  rows.push_back(CliClientRow({"valid-credentials", "--at", "2026-13-01T00:00:00Z"}, 2,
                              {"--at: expected an RFC 3339 time"}));
  rows.push_back(
      CliClientRow({"valid-credentials", "--at", "2026-01-01T00:00:00Z", "--namespace", "Demo"}, 1,
                   {"INVALID_ARGUMENT: namespace: \"Demo\"", kCliNotLabel}));
  rows.push_back(CliOfflineRow({"backup", "--db", kCliServerDb}, 2, {"--to: required"}));
  rows.push_back(
      CliOfflineRow({"backup", "--db", "", "--to", CliInput("copy.db")}, 2, {"--db: required"}));
  rows.push_back(CliOfflineRow({"backup", "--db", kCliServerDb, "--to", CliInput("a-folder")}, 2,
                               {"--to: ", "a-folder\" names a directory"}));
  rows.push_back(
      CliOfflineRow({"backup", "--db", CliInput("missing.db"), "--to", CliInput("copy.db")}, 1,
                    {"backup: no database at"}));
  rows.push_back(CliOfflineRow({"backup", "--db", kCliServerDb, "--to", CliInput("invalid.yaml")},
                               1, {"invalid.yaml\" exists; choose a new file name"}));
  rows.push_back(CliOfflineRow(
      {"backup", "--store", "postgresql://svc:hunter2@127.0.0.1:1/log", "--to", CliInput("c.db")},
      2, {"--store: carries a password"}));
  // An empty connection string is refused, never taken for "not given".
  rows.push_back(CliOfflineRow({"serve", "--store", ""}, 2, {"--store", "must not be empty"}));
  rows.push_back(CliOfflineRow({"migrate", "--store="}, 2, {"--store", "must not be empty"}));
  rows.push_back(CliOfflineRow({"verify", "--store", "", "--public-key", CliInput("k.pem")}, 2,
                               {"--store", "must not be empty"}));
  rows.push_back(CliOfflineRow({"copy-log", "--from-db", kCliServerDb, "--to-store", ""}, 2,
                               {"--to-store", "must not be empty"}));
  rows.push_back(CliOfflineRow(
      {"serve", "--store", "host=127.0.0.1 port=1 dbname=log", "--store-password-file", ""}, 2,
      {"--store-password-file", "must not be empty"}));
  // SQLite's settings are refused for a PostgreSQL log.
  rows.push_back(CliOfflineRow(
      {"serve", "--store", "host=127.0.0.1 port=1 dbname=log", "--synchronous", "normal"}, 2,
      {"--synchronous: only with --db (a SQLite log), not --store"}));
  rows.push_back(CliOfflineRow(
      {"serve", "--store", "host=127.0.0.1 port=1 dbname=log", "--space-reserve", "1"}, 2,
      {"--space-reserve: only with --db (a SQLite log), not --store"}));
  rows.push_back(CliOfflineRow({"copy-log"}, 2, {"--from-db: required", "or --from-store"}));
  rows.push_back(CliOfflineRow({"copy-log", "--from-db", kCliServerDb}, 2, {"--to-db: required"}));
  rows.push_back(
      CliOfflineRow({"copy-log", "--from-db", kCliServerDb, "--to-db", CliInput("a-folder")}, 2,
                    {"--to-db: ", "a-folder\" names a directory"}));
  rows.push_back(CliOfflineRow({"copy-log", "--from-db", kCliServerDb, "--to-store",
                                "postgresql://svc:hunter2@127.0.0.1:1/log"},
                               2, {"--to-store: carries a password"}));
  rows.push_back(CliOfflineRow(
      {"copy-log", "--from-db", CliInput("missing.db"), "--to-db", CliInput("copy.db")}, 1,
      {"FAILED_PRECONDITION: source ", "missing.db: no such database file"}));
  rows.push_back(
      CliOfflineRow({"copy-log", "--from-db", kCliServerDb, "--to-db", CliInput("invalid.yaml")}, 1,
                    {"FAILED_PRECONDITION: target ", "invalid.yaml\" exists"}));
  rows.push_back(CliOfflineRow({"keygen", "--private-key", CliInput("not-a-folder/key.pem"),
                                "--public-key", CliInput("key.pub.pem")},
                               2, {"--private-key: ", "not-a-folder\" is not an existing folder"}));
  rows.push_back(CliOfflineRow({"keygen", "--private-key", CliInput("new-key.pem"), "--public-key",
                                CliInput("invalid.yaml")},
                               1, {"--public-key: ", "exists"}));
  rows.push_back(CliOfflineRow({"keygen", "--private-key", ""}, 2, {"--private-key: required"}));
  rows.push_back(CliOfflineRow(
      {"keygen", "--private-key", CliInput("new-key.pem"), "--public-key", CliInput("a-folder/")},
      2, {"--public-key: ", "a-folder/\" names a directory"}));
  rows.push_back(CliOfflineRow({"keygen", "extra"}, 2, {"expected no arguments, got 1 argument"}));
  // exec: the command is a path that does not exist, so a row accepted by mistake cannot
  // replace this process.
  rows.push_back(CliOfflineRow(
      {"exec", "--credentials-dir", CliInput("missing"), "--", CliInput("no-command")}, 1,
      {"credentials directory", "No such file or directory"}));
  rows.push_back(
      CliOfflineRow({"exec", "--", CliInput("no-command")}, 2, {"--credentials-dir is required"}));
  rows.push_back(CliOfflineRow({"exec", "--credentials-dir", CliInput("a-folder")}, 2,
                               {"expected -- <command> [<argument>...], got 0 arguments"}));
  rows.push_back(
      CliOfflineRow({"exec", "--credentials-dir", CliInput("a-folder"), CliInput("no-command")}, 2,
                    {"the command goes after --"}));
}

}  // namespace

std::vector<BadInputCliRow> BadInputCliRows() {
  std::vector<BadInputCliRow> rows;
  AddCliDispatcherAndServerRows(rows);
  AddCliTargetRows(rows);
  AddCliIdentityRows(rows);
  AddCliClusterAndSourceRows(rows);
  AddCliAuditAndLocalRows(rows);
  return rows;
}

}  // namespace credledger::testing
