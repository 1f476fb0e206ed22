// Field selectors (the `fieldSelector` query parameter): comma-separated `path=value`,
// `path==value` or `path!=value` terms over dotted JSON paths of the object
// ("metadata.name", "metadata.namespace", "type", "status.phase"). A missing field compares
// as the empty string. Kubernetes limits the fields per resource; this server accepts any
// path (documented deviation: lenient where kube-apiserver would answer 400).
//
// Thread-safety: a parsed FieldSelector is immutable and safe to share.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace credledger::kubeapi {

class FieldSelector {
 public:
  struct Term {
    std::string path;  // dotted, e.g. "metadata.name"
    bool negated;      // true for !=
    std::string value;
  };

  // The empty selector, matching every object.
  FieldSelector() = default;

  // Parses `text`. Errors: kInvalidArgument for a term without an operator or path.
  static absl::StatusOr<FieldSelector> Parse(absl::string_view text);

  // True when `object` satisfies every term.
  bool Matches(const nlohmann::json& object) const;

  // The name required by a `metadata.name=<name>` term, if any; Kubernetes authorizes a
  // list/watch carrying one as a request for that single object.
  std::optional<std::string> RequiredName() const;

  bool empty() const { return terms_.empty(); }

 private:
  std::vector<Term> terms_;
};

}  // namespace credledger::kubeapi
