// Kubernetes label selectors in their string form (the `labelSelector` query parameter).
//
// Grammar (comma-separated requirements, whitespace allowed between tokens):
//   key=value  key==value  key!=value        equality / inequality
//   key in (v1,v2)  key notin (v1,v2)        set-based
//   key  !key                                existence / absence
//   key>5  key<5                             integer comparison (label must parse)
// An empty selector matches everything. Keys are qualified names ("[prefix/]name", name up
// to 63 characters of [A-Za-z0-9._-] starting and ending alphanumeric, prefix a DNS
// subdomain); values are empty or follow the same name rule.
// Matching: `!=` and `notin` also match objects without the key, as in Kubernetes.
//
// Thread-safety: a parsed LabelSelector is immutable and safe to share.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace credledger::kubeapi {

class LabelSelector {
 public:
  enum class Op { kEquals, kNotEquals, kIn, kNotIn, kExists, kDoesNotExist, kGreater, kLess };
  struct Requirement {
    std::string key;
    Op op;
    std::vector<std::string> values;
  };

  // The empty selector, matching every object.
  LabelSelector() = default;

  // Parses `text`.
  // Errors: kInvalidArgument naming the offending requirement when the syntax is wrong or a
  // key/value is not a valid label key/value.
  static absl::StatusOr<LabelSelector> Parse(absl::string_view text);

  // True when `labels` (metadata.labels: an object of strings, or null when absent)
  // satisfies every requirement.
  bool Matches(const nlohmann::json& labels) const;

  bool empty() const { return requirements_.empty(); }
  const std::vector<Requirement>& requirements() const { return requirements_; }

 private:
  std::vector<Requirement> requirements_;
};

// True when `key` is a valid label key (qualified name with optional DNS-subdomain prefix).
bool IsValidLabelKey(absl::string_view key);
// True when `value` is a valid label value (empty, or a name of up to 63 characters).
bool IsValidLabelValue(absl::string_view value);

}  // namespace credledger::kubeapi
