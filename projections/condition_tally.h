// ConditionTally: how many items hold each (status, reason) of one condition, kept current
// by the projection that owns the items as they change, so that metrics read counts without
// walking the fleet (issue 7, "Operations"; docs/operations.md, "Metrics and health").
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

#include "credledger/v1/state.pb.h"

namespace credledger::projections {

class ConditionTally {
 public:
  // (status, reason) -> items.
  using Counts = std::map<std::pair<std::string, std::string>, int64_t>;

  // Counts one more item with `condition`.
  void Add(const v1::Condition& condition);
  // Counts one item fewer with `condition`. REQUIRES: an Add of an equal status and reason
  // that was not removed yet.
  void Remove(const v1::Condition& condition);

  const Counts& counts() const { return counts_; }
  // Items with exactly `status` and `reason`.
  int64_t Count(const std::string& status, const std::string& reason) const;

 private:
  Counts counts_;
};

}  // namespace credledger::projections
