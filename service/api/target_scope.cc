#include "service/api/target_scope.h"

#include <utility>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/dns_label.h"

namespace credledger::service {

TargetScope TargetScope::Unrestricted() { return TargetScope(); }

TargetScope TargetScope::Of(std::vector<std::string> patterns) {
  TargetScope scope;
  scope.unrestricted_ = false;
  for (std::string& pattern : patterns) {
    if (IsTargetPattern(pattern)) scope.patterns_.push_back(std::move(pattern));
  }
  return scope;
}

bool TargetScope::Contains(absl::string_view target_namespace, absl::string_view name) const {
  if (unrestricted_) return true;
  for (const std::string& pattern : patterns_) {
    const std::pair<absl::string_view, absl::string_view> parts =
        absl::StrSplit(pattern, absl::MaxSplits('/', 1));
    if (parts.first == target_namespace && (parts.second == "*" || parts.second == name)) {
      return true;
    }
  }
  return false;
}

std::string TargetScope::Describe() const {
  if (unrestricted_) return "every Target";
  if (patterns_.empty()) return "no Target";
  return absl::StrJoin(patterns_, ", ");
}

bool IsTargetPattern(absl::string_view pattern) {
  const std::vector<absl::string_view> parts = absl::StrSplit(pattern, '/');
  return parts.size() == 2 && common::ValidateDnsLabel("", parts[0]).ok() &&
         (parts[1] == "*" || common::ValidateDnsLabel("", parts[1]).ok());
}

}  // namespace credledger::service
