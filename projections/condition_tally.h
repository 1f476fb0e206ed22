// ConditionTally: how many items hold each (status, reason) of one condition, kept current
// by the projection that owns the items as they change, so that metrics read counts without
// walking the fleet (docs/operations.md, "Metrics and health").
//
// The owner calls Remove with an item's condition before changing the item and Add with the
// new one afterwards, for the items it counts. A pair whose count falls to 0 stays listed,
// so a series that was seen reads 0 instead of vanishing.
//
// Thread-safety: not thread-safe; the owning projection's lock guards it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"
#include "credledger/v1/state.pb.h"

namespace credledger::projections {

class ConditionTally {
 public:
  // Orders (status, reason) pairs, and compares them with pairs of string views so that a
  // count is found without copying the condition's strings.
  struct StatusReasonLess {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return std::pair<absl::string_view, absl::string_view>(a.first, a.second) <
             std::pair<absl::string_view, absl::string_view>(b.first, b.second);
    }
  };
  // (status, reason) -> items.
  using Counts = std::map<std::pair<std::string, std::string>, int64_t, StatusReasonLess>;

  // Counts one more item with `condition`.
  void Add(const v1::Condition& condition);
  // Counts one item fewer with `condition`. REQUIRES: an Add of an equal status and reason
  // that was not removed yet.
  void Remove(const v1::Condition& condition);

  const Counts& counts() const { return counts_; }
  // Items with exactly `status` and `reason`.
  int64_t Count(const std::string& status, const std::string& reason) const;

 private:
  // The count of the condition's (status, reason), added at 0 when new.
  int64_t& CountOf(const v1::Condition& condition);

  Counts counts_;
};

}  // namespace credledger::projections
