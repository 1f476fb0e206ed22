// RandomStatusLog: random stored events of a few Targets for tests of the status projection's
// folds (projections/status_projection.h): registrations (some with a new uid), reports whose
// checks and release phases change, bound releases, staleness, clock skews, liveness batches,
// credential events, finalizations, and events of another incarnation, in seq order. For
// tests only.
//
// Thread-safety: not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "credledger/v1/events.pb.h"
#include "projections/status_projection.h"
#include "store/event_store.h"

namespace credledger::testing {

// `event` as stored at `seq` (stream version = seq, recorded `seq` seconds after a base time).
store::RecordedEvent StoredAt(int64_t seq, const std::string& stream, const v1::Event& event);

// Writes random events of `targets` Targets (a few by default) as stored events, in seq order.
class RandomStatusLog {
 public:
  explicit RandomStatusLog(uint32_t seed, int targets = 5);

  // The next event, one to three seconds after the previous one.
  store::RecordedEvent Next();

 private:
  int Pick(int n);

  // `event` stored in `stream` at the next seq and the stream's next version, recorded now.
  store::RecordedEvent Stored(const std::string& stream, const v1::Event& event);

  std::mt19937 random_;
  absl::Time now_ = absl::FromUnixSeconds(1'795'000'000);
  int64_t seq_ = 0;
  int uid_counter_ = 0;
  std::vector<std::string> uids_;  // by Target, empty before its first registration
  std::map<std::string, int64_t> versions_;
};

// The Reporting tally of `p` as text, to compare two projections' counts.
std::string ReportingTally(const projections::StatusProjection& p);

}  // namespace credledger::testing
