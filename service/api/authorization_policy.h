// AuthorizationPolicy: which caller identity may call which RPC, and as which Kubernetes
// user and groups it acts (docs/api.md, "Caller identity" and "Authorization").
//
// The policy file (YAML, --authorization-policy):
//
//   identities:
//     - name: platform-controller          # the caller identity; "*" matches every caller
//       rpcs: ["TargetService/*", "ReportService/PushReport"]
//       kubernetes:                        # optional; used for access reviews
//         user: system:serviceaccount:solar-system:solar-controller-manager
//         groups: [solar-operators]
//
// An identity is the caller's declared name (the credledger-actor metadata, the CLI's --as;
// "anonymous" when absent). RPCs are "<Service>/<Method>" or "<Service>/*" with services and
// methods of credledger.v1. A caller listed by name gets exactly its entry; other callers get
// the "*" entry; a caller with neither is denied everything.
//
// Thread-safety: immutable after Load; all methods are const.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace credledger::service {

class AuthorizationPolicy {
 public:
  // The Kubernetes identity a caller acts as.
  struct KubernetesSubject {
    std::string user;
    std::vector<std::string> groups;
  };

  // Every caller may call every RPC (no policy file given).
  static AuthorizationPolicy AllowAll();

  // Parses a policy document.
  // Errors: kInvalidArgument naming the path of the bad entry ("identities[1].rpcs[0]") and
  // the rule: malformed YAML, a document over 1 MiB or nested deeper than 499 levels
  // (common/yaml_text.h), unknown keys, a missing or duplicate name, an RPC that is not
  // "<Service>/<Method>" or "<Service>/*" of credledger.v1.
  static absl::StatusOr<AuthorizationPolicy> Parse(absl::string_view yaml);

  // Reads and parses the file at `path`; errors are prefixed with the path.
  // Errors: kNotFound when it does not exist; Parse's.
  static absl::StatusOr<AuthorizationPolicy> Load(const std::filesystem::path& path);

  // OK when `identity` may call `service`/`method` (short names, e.g. "ReportService",
  // "PushReport").
  // Errors: kPermissionDenied "caller \"<identity>\" may not call <service>/<method>
  // (authorization policy)".
  absl::Status Authorize(absl::string_view identity, absl::string_view service,
                         absl::string_view method) const;

  // The Kubernetes user and groups of `identity` (its own entry, else the "*" entry); an
  // empty user when the policy names none.
  KubernetesSubject SubjectOf(absl::string_view identity) const;

  // False for AllowAll.
  bool restrictive() const { return restrictive_; }

 private:
  struct Entry {
    std::vector<std::string> rpcs;  // "Service/Method" or "Service/*"
    KubernetesSubject subject;
  };
  const Entry* EntryFor(absl::string_view identity) const;

  bool restrictive_ = true;
  std::map<std::string, Entry, std::less<>> entries_;
};

}  // namespace credledger::service
