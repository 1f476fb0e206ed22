// The rows of the bad-input table (bad_input_cli_rows.h) for `identity`, `cluster` and
// `source`: spec flags and spec files.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "test/integration/bad_input_cli_row_builders.h"

namespace credledger::testing {

void AddCliIdentityRows(std::vector<BadInputCliRow>& rows) {
  const std::vector<std::string> spec = {"--secret", "ops/aws", "--allow-all-namespaces"};
  auto create = [&](std::string name, std::vector<std::string> more) {
    std::vector<std::string> args = {"identity", "create", std::move(name)};
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  rows.push_back(CliClientRow(create("Bad_Name", spec), 1,
                              {"INVALID_ARGUMENT: name: \"Bad_Name\"", kCliNotSubdomain}));
  rows.push_back(
      CliClientRow(create(CliRepeat(254), spec), 1,
                   {"INVALID_ARGUMENT: name: ", "a DNS-1123 subdomain has at most 253 bytes"}));
  rows.push_back(
      CliClientRow(create("aws", {"--secret", "ops/aws"}), 2, {"allowed namespaces: none given"}));
  rows.push_back(CliClientRow(create("aws", {"--secret", "nosplit", "--allow-all-namespaces"}), 2,
                              {"--secret: expected <namespace>/<name>, got \"nosplit\""}));
  rows.push_back(CliClientRow(create("aws", {"--secret", "ops/aws", "--match-label", "k"}), 2,
                              {"--match-label: expected <key>=<value>, got \"k\""}));
  rows.push_back(CliClientRow(
      create("aws", {"--secret", "ops/aws", "--match-label", absl::StrCat("tier=", CliRepeat(64))}),
      1,
      {"INVALID_ARGUMENT: spec.allowed_namespaces.selector.match_labels[0]."
       "value: ",
       "is not a label value (at most 63 characters"}));
  rows.push_back(
      CliClientRow(create("aws", {"--secret", "ops/aws", "--allow-namespace", "Team A"}), 1,
                   {"INVALID_ARGUMENT: spec.allowed_namespaces.list[0]: ", kCliNotLabel}));
  rows.push_back(CliClientRow(create("aws", {"--secret", "ops/Aws", "--allow-all-namespaces"}), 1,
                              {"INVALID_ARGUMENT: spec.secret_ref.name: ", kCliNotSubdomain}));
  rows.push_back(CliClientRow(
      create("aws", {"--secret", "ops/aws", "--allow-all-namespaces", "--cluster", "Edge_1"}), 1,
      {"INVALID_ARGUMENT: spec.cluster: ", kCliNotLabel}));
  const std::string in = kCliInputs;
  rows.push_back(CliClientRow(create("aws", {"-f", CliInput("invalid.yaml")}), 1,
                              {absl::StrCat("\"", in, "/invalid.yaml\": not valid YAML")}));
  rows.push_back(CliClientRow(create("aws", {"-f", CliInput("two-docs.yaml")}), 1,
                              {"2 YAML documents found (separated by ---); one is expected"}));
  rows.push_back(
      CliClientRow(create("aws", {"-f", CliInput("unknown-key.yaml")}), 1, {"bogus: unknown key"}));
  rows.push_back(CliClientRow(create("aws", {"-f", CliInput("long-label.yaml")}), 1,
                              {"INVALID_ARGUMENT: spec.allowed_namespaces.selector.match_labels[0]."
                               "value: ",
                               "is not a label value"}));
  rows.push_back(
      CliClientRow(create("aws", {"-f", CliInput("missing.yaml")}), 1,
                   {absl::StrCat("\"", in, "/missing.yaml\": No such file or directory")}));
  rows.push_back(
      CliClientRow(create("aws", {"-f", CliInput("a-folder")}), 1, {"not a regular file"}));
  rows.push_back(CliClientRow(create("aws", {"-f", CliInput("not-utf8.yaml")}), 1,
                              {"not-utf8.yaml\": not valid UTF-8; a spec file is UTF-8 text"}));
  rows.push_back(CliClientRow(create("aws", {"-f", CliInput("too-big.yaml")}), 1,
                              {"too-big.yaml\": larger than the limit of 1048576 bytes"}));
  rows.push_back(CliClientRow(create("aws", {"-f", CliInput("deep.yaml")}), 1,
                              {"deep.yaml\": nested deeper than the limit of 499 levels"}));
  rows.push_back(
      CliClientRow(create("aws", {"-f", CliInput("invalid.yaml"), "--secret", "ops/aws"}), 2,
                   {"-f and the spec flags", "are exclusive"}));
  rows.push_back(CliClientRow({"identity", "update", "aws", "--secret", "ops/aws"}, 2,
                              {"allowed namespaces: none given"}));
  rows.push_back(CliClientRow({"identity", "update", "aws", "-f", CliInput("two-docs.yaml")}, 1,
                              {"2 YAML documents found"}));
  rows.push_back(CliClientRow({"identity", "delete", ""}, 1, {"INVALID_ARGUMENT: name: required"}));
  rows.push_back(CliClientRow({"identity", "get", CliRepeat(254)}, 1,
                              {"INVALID_ARGUMENT: name: ", "at most 253 bytes"}));
  rows.push_back(
      CliClientRow({"identity", "list", "extra"}, 2, {"expected no arguments, got 1 argument"}));
  rows.push_back(CliClientRow({"identity", "bind", "aws", "--namespace", "team-a", "--owner",
                               "v1/ConfigMap", "--owner-uid", kCliUid},
                              2, {"--owner: expected <apiVersion>/<kind>/<name>"}));
  rows.push_back(
      CliClientRow({"identity", "bind", "aws", "--namespace", "team-a", "--owner",
                    "v1/ConfigMap/settings", "--owner-uid", "bad"},
                   1, {"INVALID_ARGUMENT: owner.uid: \"bad\" is not a lowercase RFC 4122 UUID"}));
  rows.push_back(CliClientRow(
      {"identity", "bind", "aws", "--owner", "v1/ConfigMap/settings", "--owner-uid", kCliUid}, 2,
      {"error: --namespace is required"}));
  rows.push_back(CliClientRow(
      {"identity", "bind", "aws", "--namespace", "team-a", "--owner", "v1/ConfigMap/settings"}, 2,
      {"error: --owner-uid is required"}));
  rows.push_back(CliClientRow({"identity", "unbind", "aws", "--namespace", "team-a"}, 2,
                              {"error: --owner is required"}));
  rows.push_back(CliClientRow({"identity", "bind", "aws", "--namespace", "team-a", "--owner",
                               "apps/V1/Deployment/web", "--owner-uid", kCliUid},
                              1, {"INVALID_ARGUMENT: owner.api_version: "}));
  rows.push_back(CliClientRow(
      {"identity", "unbind", "aws", "--namespace", "Team", "--owner", "v1/ConfigMap/settings"}, 1,
      {"INVALID_ARGUMENT: namespace: \"Team\"", kCliNotLabel}));
  rows.push_back(CliClientRow({"identity", "mirrors", "--identity", "AWS"}, 1,
                              {"INVALID_ARGUMENT: identity: \"AWS\"", kCliNotSubdomain}));
  rows.push_back(CliOfflineRow({"identity", "pod-spec", "Bad_Name"}, 2,
                               {"name: \"Bad_Name\"", kCliNotSubdomain}));
  rows.push_back(CliOfflineRow({"identity", "pod-spec", "aws", "--container", ""}, 2,
                               {"--container: required"}));
  rows.push_back(CliOfflineRow({"identity", "pod-spec", "aws", "--container", "Bad Name"}, 2,
                               {"--container: \"Bad Name\"", kCliNotLabel}));
}

void AddCliClusterAndSourceRows(std::vector<BadInputCliRow>& rows) {
  const std::vector<std::string> agentless = {
      "cluster", "register",    "edge-1", "--connection-mode", "agentless",   "--namespace",
      "fleet",   "--auth-type", "token",  "--token-secret",    "edge-1-token"};
  auto agentless_with = [&](std::vector<std::string> more) {
    std::vector<std::string> args = agentless;
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  rows.push_back(CliClientRow({"cluster", "register", "edge-1", "--connection-mode", "sideways"}, 2,
                              {"--connection-mode", "must be one of inCluster, agentless"}));
  rows.push_back(CliClientRow({"cluster", "register", "edge-1"}, 2,
                              {"--connection-mode: required: inCluster or agentless"}));
  rows.push_back(CliClientRow({"cluster", "register", "edge-1", "--connection-mode", "agentless"},
                              2, {"--namespace: required with --connection-mode agentless"}));
  rows.push_back(
      CliClientRow(agentless_with({"--api-server", "http://edge-1.example"}), 1,
                   {"INVALID_ARGUMENT: spec.agentless.server: ", "is not an https:// URL"}));
  rows.push_back(
      CliClientRow(agentless_with({"--api-server", "https://edge-1.example/?token=x"}), 1,
                   {"INVALID_ARGUMENT: spec.agentless.server: must not contain a query"}));
  rows.push_back(
      CliClientRow({"cluster", "register", "edge-1", "--connection-mode", "agentless",
                    "--namespace", "fleet", "--auth-type", "Token"},
                   2, {"--auth-type: \"Token\" is not an auth type", "did you mean token?"}));
  rows.push_back(CliClientRow(
      agentless_with({"--api-server", "https://edge-1.example", "--ca-ref", "Pod/edge-1-ca"}), 1,
      {"INVALID_ARGUMENT: spec.agentless.ca_ref.kind: \"Pod\""}));
  rows.push_back(
      CliClientRow(agentless_with({"--api-server", "https://edge-1.example", "--ca-ref", "nokind"}),
                   2, {"--ca-ref: expected <kind>/<name>[/<key>], got \"nokind\""}));
  rows.push_back(
      CliClientRow({"cluster", "register", CliRepeat(64), "--connection-mode", "inCluster"}, 1,
                   {"INVALID_ARGUMENT: name: ", "at most 63 bytes"}));
  rows.push_back(
      CliClientRow({"cluster", "register", "edge-1", "-f", CliInput("cluster-unknown-key.yaml")}, 1,
                   {"agentless.extra: unknown key"}));
  rows.push_back(
      CliClientRow({"cluster", "register", "edge-1", "-f", CliInput("cluster-bad-mode.yaml")}, 1,
                   {"connectionMode: \"sideways\" is neither inCluster nor agentless"}));
  rows.push_back(CliClientRow({"cluster", "register", "edge-1", "-f", CliInput("invalid.yaml")}, 1,
                              {"invalid.yaml\": not valid YAML"}));
  rows.push_back(CliClientRow({"cluster", "register", "edge-1", "-f", CliInput("deep.yaml")}, 1,
                              {"deep.yaml\": nested deeper than the limit of 499 levels"}));
  rows.push_back(CliClientRow({"cluster", "deregister", "Bad_Name"}, 1,
                              {"INVALID_ARGUMENT: name: \"Bad_Name\"", kCliNotLabel}));
  rows.push_back(CliClientRow({"cluster", "probe", ""}, 1, {"INVALID_ARGUMENT: name: required"}));
  rows.push_back(CliClientRow({"cluster", "get", CliRepeat(64)}, 1,
                              {"INVALID_ARGUMENT: name: ", "at most 63 bytes"}));
  rows.push_back(CliClientRow({"cluster", "list", "--include-deregistered=maybe"}, 2,
                              {"--include-deregistered", "expected true or false"}));

  const std::vector<std::string> git = {"source", "verify", "--name", "repo", "--kind", "git"};
  auto git_with = [&](std::vector<std::string> more) {
    std::vector<std::string> args = git;
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  rows.push_back(
      CliClientRow({"source", "verify", "--kind", "git", "--url", "https://git.example/r"}, 2,
                   {"--name: required"}));
  rows.push_back(CliClientRow({"source", "verify", "--name", "repo", "--kind", "svn"}, 2,
                              {"--kind", "must be one of git, helm, oci"}));
  rows.push_back(CliClientRow(git_with({"--url", "https://u:hunter2@git.example/r.git"}), 1,
                              {"INVALID_ARGUMENT: source.url: must not contain a password"}));
  rows.push_back(CliClientRow(git_with({"--url", "https://git.example/a b"}), 1,
                              {"INVALID_ARGUMENT: source.url: must not contain whitespace"}));
  rows.push_back(CliClientRow(git_with({"--url", "https://git.example/r.git", "--auth", "basic"}),
                              2, {"--secret: required with --auth basic"}));
  rows.push_back(
      CliClientRow(git_with({"--url", "https://git.example/r.git", "--namespace", "Flux"}), 1,
                   {"INVALID_ARGUMENT: source.namespace: \"Flux\"", kCliNotLabel}));
  rows.push_back(CliClientRow(
      {"source", "verify", "--name", "Repo", "--kind", "git", "--url", "https://git.example/r.git"},
      1, {"INVALID_ARGUMENT: name: \"Repo\"", kCliNotLabel}));
  rows.push_back(
      CliClientRow({"source", "verify", "--name", "repo", "-f", CliInput("source-yes.yaml")}, 1,
                   {"tls.insecureSkipVerify: must be true or false (unquoted)"}));
  rows.push_back(
      CliClientRow({"source", "verify", "--name", "repo", "-f", CliInput("two-docs.yaml")}, 1,
                   {"2 YAML documents found"}));
  rows.push_back(
      CliClientRow({"source", "verify", "--name", "repo", "-f", CliInput("invalid.yaml")}, 1,
                   {"invalid.yaml\": not valid YAML"}));
}

}  // namespace credledger::testing
