// TargetScope: the Targets one caller may address, as its authorization policy entry grants
// them (docs/api.md, "Target scopes"). A scope is either unrestricted (the entry lists no
// `targets`) or a list of resolved patterns, each "<namespace>/<name>" (one Target) or
// "<namespace>/*" (every Target of a namespace). Target-addressed RPCs outside the scope are
// refused; lists and watches leave out what is outside it.
//
// Thread-safety: immutable value; all methods are const.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace credledger::service {

class TargetScope {
 public:
  // Every Target.
  static TargetScope Unrestricted();
  // Only the Targets `patterns` name. A pattern that is neither "<label>/<label>" nor
  // "<label>/*" (DNS-1123 labels) matches nothing; an empty list matches nothing.
  static TargetScope Of(std::vector<std::string> patterns);

  // True when the scope names every Target.
  bool unrestricted() const { return unrestricted_; }

  // True when the Target `target_namespace`/`name` is in the scope.
  bool Contains(absl::string_view target_namespace, absl::string_view name) const;

  // The scope for error messages: "every Target", "no Target", or the patterns joined by
  // ", " (e.g. "demo/edge-a, staging/*").
  std::string Describe() const;

 private:
  bool unrestricted_ = true;
  std::vector<std::string> patterns_;  // valid patterns only
};

// True when `pattern` is "<namespace>/<name>" or "<namespace>/*" with DNS-1123 labels.
bool IsTargetPattern(absl::string_view pattern);

}  // namespace credledger::service
