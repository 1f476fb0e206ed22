#include "projections/condition_tally.h"

namespace credledger::projections {

int64_t& ConditionTally::CountOf(const v1::Condition& condition) {
  const std::pair<absl::string_view, absl::string_view> key(condition.status(), condition.reason());
  auto it = counts_.find(key);
  if (it == counts_.end()) {
    it = counts_.emplace(std::make_pair(condition.status(), condition.reason()), 0).first;
  }
  return it->second;
}

void ConditionTally::Add(const v1::Condition& condition) { ++CountOf(condition); }

void ConditionTally::Remove(const v1::Condition& condition) { --CountOf(condition); }

int64_t ConditionTally::Count(const std::string& status, const std::string& reason) const {
  auto it = counts_.find({status, reason});
  return it == counts_.end() ? 0 : it->second;
}

}  // namespace credledger::projections
