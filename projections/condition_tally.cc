#include "projections/condition_tally.h"

namespace credledger::projections {

void ConditionTally::Add(const v1::Condition& condition) {
  ++counts_[{condition.status(), condition.reason()}];
}

void ConditionTally::Remove(const v1::Condition& condition) {
  --counts_[{condition.status(), condition.reason()}];
}

int64_t ConditionTally::Count(const std::string& status, const std::string& reason) const {
  auto it = counts_.find({status, reason});
  return it == counts_.end() ? 0 : it->second;
}

}  // namespace credledger::projections
