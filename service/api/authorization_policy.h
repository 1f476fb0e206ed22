// AuthorizationPolicy: which caller identity may call which RPC, which Targets it may address,
// and as which Kubernetes user and groups it acts (docs/api.md, "Caller identity",
// "Authorization", "Target scopes" and "Declared names").
//
// The policy file (YAML, --authorization-policy):
//
//   identities:
//     - name: platform-controller          # an identity; "*" is every other caller;
//                                          # "prefix*" every identity starting with "prefix"
//       rpcs: ["TargetService/*", "ReportService/PushReport"]
//       targets: ["demo/*"]                # optional: the Target scope
//       allow_declared: false              # optional: may a declared name (--as) match it
//       kubernetes:                        # optional; used for access reviews
//         user: system:serviceaccount:solar-system:solar-controller-manager
//         groups: [solar-operators]
//     - name: spiffe://corp/agent/*          # "spiffe://corp/agent/demo/edge-a" ...
//       rpcs: ["ReportService/PushReport"]
//       targets: ["{identity-suffix}"]     # ... may address "demo/edge-a" only
//
// RPCs are "<Service>/<Method>" or "<Service>/*" with services and methods of credledger.v1.
// An identity matches, in this order: the entry of its exact name, the entry with the longest
// matching "prefix*" name, the "*" entry; a caller matched by none is denied everything. A
// declared name (authentication "declared") matches an exact or prefix entry only when that
// entry sets `allow_declared: true`; otherwise only "*".
//
// Targets are "<namespace>/<name>", "<namespace>/*", or contain "{identity-suffix}": the part
// of the identity its "prefix*" name matched (the whole identity under "*"), substituted at
// each call; a result that is not a Target pattern matches nothing. No suffix is supplied by a
// declared name (unless its entry allows declared names), by "anonymous", or when it holds a
// '*'. Without `targets` the caller's scope is every Target.
//
// Thread-safety: immutable after Load; all methods are const.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "service/api/target_scope.h"

namespace credledger::service {

class AuthorizationPolicy {
 public:
  // The Kubernetes identity a caller acts as.
  struct KubernetesSubject {
    std::string user;
    std::vector<std::string> groups;
  };

  // Every caller may call every RPC on every Target (serve --insecure-allow-all).
  static AuthorizationPolicy AllowAll();

  // No caller may call any RPC (serve without a policy file and without
  // --insecure-allow-all: only health and reflection answer).
  static AuthorizationPolicy DenyAll();

  // Parses a policy document.
  // Errors: kInvalidArgument naming the path of the bad entry ("identities[1].rpcs[0]") and
  // the rule: malformed YAML, a document over 1 MiB or nested deeper than 499 levels
  // (common/yaml_text.h), unknown keys, a missing or duplicate name, a '*' anywhere but at
  // the end of a name, an RPC that is not "<Service>/<Method>" or "<Service>/*" of
  // credledger.v1, a target that is neither a Target pattern nor holds "{identity-suffix}",
  // "{identity-suffix}" in an entry whose name does not end in '*', allow_declared not a
  // boolean.
  static absl::StatusOr<AuthorizationPolicy> Parse(absl::string_view yaml);

  // Reads and parses the file at `path`; errors are prefixed with the path.
  // Errors: kNotFound when it does not exist; Parse's.
  static absl::StatusOr<AuthorizationPolicy> Load(const std::filesystem::path& path);

  // The caller's Target scope when `identity` (a declared name when `declared`) may call
  // `service`/`method` (short names, e.g. "ReportService", "PushReport").
  // Errors: kPermissionDenied "caller \"<identity>\" may not call <service>/<method>
  // (authorization policy)", or naming the missing policy for DenyAll.
  absl::StatusOr<TargetScope> Authorize(absl::string_view identity, bool declared,
                                        absl::string_view service, absl::string_view method) const;

  // The Kubernetes user and groups the caller recorded as `actor` acts as (a declared caller
  // is recorded as "declared:<name>", validation.h): its entry's `kubernetes`, else its own
  // identity as the user, with no groups, or for a ServiceAccount
  // ("system:serviceaccount:<ns>:<name>") the groups Kubernetes gives it,
  // "system:serviceaccounts" and "system:serviceaccounts:<ns>". nullopt for a caller no entry
  // matches, and for a
  // declared caller whose entry neither names a user nor allows declared names. AllowAll: the
  // identity as the user.
  std::optional<KubernetesSubject> SubjectOf(absl::string_view actor) const;

  // False for AllowAll.
  bool restrictive() const { return restrictive_; }

 private:
  struct Entry {
    std::vector<std::string> rpcs;  // "Service/Method" or "Service/*"
    std::optional<std::vector<std::string>> targets;
    bool allow_declared = false;
    KubernetesSubject subject;
  };
  // The entry `identity` matches and the suffix its name matched (empty for an exact name,
  // the whole identity under "*"); nullptr when none matches.
  const Entry* EntryFor(absl::string_view identity, bool declared, absl::string_view* suffix) const;

  bool restrictive_ = true;
  bool policy_given_ = true;  // false for DenyAll, for a message naming the missing file
  std::map<std::string, Entry, std::less<>> entries_;  // exact names and "*"
  // "prefix*" entries as (prefix, entry), longest prefix first.
  std::vector<std::pair<std::string, Entry>> prefixes_;
};

}  // namespace credledger::service
