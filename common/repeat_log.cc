#include "common/repeat_log.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace credledger::common {
namespace {

// The start of the interval of length `interval` that holds `at`, aligned to the Unix epoch.
absl::Time IntervalStart(absl::Time at, absl::Duration interval) {
  return absl::UnixEpoch() + absl::Floor(at - absl::UnixEpoch(), interval);
}

}  // namespace

RepeatLog::RepeatLog(Options options, Clock* clock) : options_(std::move(options)), clock_(clock) {}

RepeatLog::~RepeatLog() { Stop(); }

bool RepeatLog::Count(absl::string_view peer, absl::string_view kind) {
  const absl::Time start = IntervalStart(clock_->Now(), options_.interval);
  absl::MutexLock lock(&mu_);
  Interval& interval = intervals_[start];
  if (auto it = interval.peers.find(peer); it != interval.peers.end()) {
    Add(it->second, kind);
    return false;
  }
  if (interval.peers.size() < options_.max_peers) {
    interval.peers.emplace(std::string(peer), Tally{});
    return true;
  }
  if (interval.other_peers.size() < kMaxOtherPeers) interval.other_peers.emplace(peer);
  if (!interval.others_written) {
    interval.others_written = true;
    return true;
  }
  Add(interval.others, kind);
  return false;
}

void RepeatLog::Add(Tally& tally, absl::string_view kind) const {
  ++tally.count;
  auto it = tally.kinds.find(kind);
  if (it == tally.kinds.end()) {
    it = tally.kinds.size() < options_.max_kinds ? tally.kinds.emplace(std::string(kind), 0).first
                                                 : tally.kinds.try_emplace(kOtherKinds, 0).first;
  }
  ++it->second;
}

void RepeatLog::Flush(absl::Time now) {
  std::map<absl::Time, Interval> ended;
  {
    absl::MutexLock lock(&mu_);
    while (!intervals_.empty() && intervals_.begin()->first + options_.interval <= now) {
      ended.insert(intervals_.extract(intervals_.begin()));
    }
  }
  for (const auto& [start, interval] : ended) {
    for (const auto& [peer, tally] : interval.peers) WriteSummary(start, peer, 1, tally);
    WriteSummary(start, kOtherPeers, interval.other_peers.size(), interval.others);
  }
}

void RepeatLog::WriteSummary(absl::Time start, const std::string& peer, size_t peers,
                             const Tally& tally) const {
  if (tally.count == 0) return;
  std::vector<LogField> fields = {
      {"peer", peer},
      {"interval_start", absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", start, absl::UTCTimeZone())},
      {"interval_seconds", absl::StrCat(absl::ToInt64Seconds(options_.interval))},
      {"count", absl::StrCat(tally.count)},
      {"kinds", absl::StrJoin(tally.kinds, ", ", absl::PairFormatter(": "))}};
  if (peer == kOtherPeers) fields.push_back({"peers", absl::StrCat(peers)});
  LogFields(options_.level, options_.summary_message, fields);
}

void RepeatLog::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void RepeatLog::Loop() {
  absl::MutexLock lock(&thread_mu_);
  for (;;) {
    const absl::Time next = IntervalStart(clock_->Now(), options_.interval) + options_.interval;
    if (!clock_->SleepUntil(next, thread_mu_, wake_, stopping_)) return;
    thread_mu_.Unlock();
    Flush(clock_->Now());
    thread_mu_.Lock();
  }
}

void RepeatLog::Stop() {
  {
    absl::MutexLock lock(&thread_mu_);
    stopping_ = true;
    wake_.SignalAll();
  }
  if (thread_.joinable()) thread_.join();
  Flush(absl::InfiniteFuture());
}

}  // namespace credledger::common
