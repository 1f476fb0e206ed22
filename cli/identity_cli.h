// The `credledger identity ...` subcommands (docs/mirrors.md, "CLI"): one per
// IdentityService RPC, with the client flags of ClientCommand (client_command.h: --server,
// --as, --output), and `identity pod-spec`, which runs locally.
//
//   identity create NAME --secret NS/NAME [--allow-namespace NS]... [--allow-all-namespaces]
//                        [--match-label K=V]... [--allow-no-namespaces]
//                                                    or      identity create NAME -f FILE
//   identity update NAME (the same spec flags, or -f FILE: the whole new spec)
// With flags, the allowed namespaces are always an explicit choice: at least one of
// --allow-namespace, --match-label, --allow-all-namespaces, or --allow-no-namespaces for
// none, so that `update` never revokes every namespace by omission.
//   identity delete NAME
//   identity get NAME
//   identity list [--include-deleted]
//   identity bind NAME --namespace NS --owner APIVERSION/KIND/NAME --owner-uid UID
//   identity unbind NAME --namespace NS --owner APIVERSION/KIND/NAME [--owner-uid UID]
//   identity mirrors [--identity NAME] [--namespace NS]
//   identity pod-spec NAME [--container NAME]
//
// --owner names the object by apiVersion, kind and name joined with '/'; apiVersion may
// itself hold a '/' ("infrastructure.cluster.x-k8s.io/v1beta1/TerraformCluster/edge-1",
// "v1/ConfigMap/settings").
//
// The spec file (-f) holds the spec with the Kubernetes field names:
//   secretRef: {namespace: creds, name: aws}
//   allowedNamespaces:
//     list: [team-a, team-b]
//     selector:
//       matchLabels: {env: prod}
//       matchExpressions: [{key: tier, operator: In, values: [a, b]}]
// `allowedNamespaces: {}` is sent as present but empty, so the server's answer explains how
// to allow every namespace (`selector: {}`); unknown keys are refused naming their path.
// The spec flags and -f are exclusive; a file without allowedNamespaces allows no namespace.
// Keys are unique in every mapping: a duplicated one is refused naming its path.
//
// Mutating subcommands send --request-id, or generate one and print "request-id: <id>" on
// stderr first. A failed call prints "error: <CODE>: <message>" on stderr and exits 1;
// usage errors exit 2.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cli/framework/subcommands.h"
#include "credledger/v1/identity.pb.h"

namespace credledger::cli {

// Adds "identity create|update|delete|get|list|bind|unbind|mirrors|pod-spec" to
// `dispatcher`.
void AddIdentityCommands(Dispatcher& dispatcher);

// The spec flags of `identity create` and `identity update`, as given.
struct IdentitySpecFlags {
  std::string secret;                         // --secret "<namespace>/<name>"
  std::vector<std::string> allow_namespaces;  // --allow-namespace, repeated
  bool allow_all_namespaces = false;          // --allow-all-namespaces: selector {}
  std::vector<std::string> match_labels;      // --match-label "<key>=<value>", repeated
  bool allow_no_namespaces = false;           // --allow-no-namespaces: allowed_namespaces unset
  std::string cluster;                        // --cluster: a registered cluster; "" = home
};

// The spec the flags describe: secret_ref from --secret; cluster from --cluster;
// allowed_namespaces unset for
// --allow-no-namespaces, else `list` from --allow-namespace and a selector that is empty for
// --allow-all-namespaces or holds the --match-label pairs. Names and labels are checked by
// the server.
// Errors: kInvalidArgument naming the flag: --secret missing or not "<namespace>/<name>",
// a --match-label without '=', --allow-all-namespaces together with --match-label,
// --allow-no-namespaces together with another namespace flag, and no namespace flag at all
// (the choice must be explicit: an update without one would revoke every namespace).
absl::StatusOr<v1::IdentitySpec> SpecFromFlags(const IdentitySpecFlags& flags);

// Parses a spec file (format in the file comment) with the rules of spec_file.h: size
// (1 MiB) checked first, nesting bounded, exactly one non-empty YAML document.
// Errors: kInvalidArgument for ParseSpecDocument's cases (over the limits, malformed YAML,
// no or several documents, an empty one), unknown or duplicated keys (naming the path,
// "allowedNamespaces.selector.matchLabel"), and values of the wrong shape.
absl::StatusOr<v1::IdentitySpec> ParseIdentitySpecYaml(absl::string_view yaml);

// Parses --owner "<apiVersion>/<kind>/<name>" (apiVersion "<version>" or
// "<group>/<version>") into api_version, kind and name.
// Errors: kInvalidArgument when it has not three or four non-empty '/'-separated parts.
absl::StatusOr<v1::OwnerReference> ParseOwner(absl::string_view text);

}  // namespace credledger::cli
