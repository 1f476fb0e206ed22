// RepeatLog: a kind of log line that a client can make repeat without bound (a refused call,
// a failed TLS handshake), summed up per peer and interval so that a flood writes a bounded
// number of lines (docs/operations.md, "Repeated lines"). The caller writes the first
// occurrence of a peer in an interval in full (Count returns true); later ones are only
// counted, and once the interval has ended one summary line per peer gives their number by
// kind, for example
//   {"time":"...","level":"info","msg":"rpc refused, repeated","peer":"ipv4:10.1.2.3",
//    "interval_start":"2026-11-29T12:00:00Z","interval_seconds":"10","count":"711999",
//    "kinds":"/credledger.v1.TargetService/Revoke PERMISSION_DENIED: 711999"}
// A peer whose only occurrence was written in full gets no summary.
//
// Intervals are aligned to the Unix epoch. Per interval at most `max_peers` peers are told
// apart; the occurrences of further peers share one summary with peer kOtherPeers and the
// number of those peers in `peers` (told apart up to kMaxOtherPeers). Per peer at most
// `max_kinds` kinds are told apart; further kinds are counted under kOtherKinds. So an
// interval writes at most 2 * (max_peers + 1) lines, each of bounded length.
//
// Thread-safety: Count and Flush are thread-safe; Start and Stop from one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/log.h"

namespace credledger::common {

// The peer of the summary that stands for the peers past `max_peers`.
inline constexpr char kOtherPeers[] = "(other peers)";
// The kind under which a peer's kinds past `max_kinds` are counted.
inline constexpr char kOtherKinds[] = "(other)";
// Distinct peers the kOtherPeers summary counts; its `peers` stops growing there.
inline constexpr size_t kMaxOtherPeers = 4096;

class RepeatLog {
 public:
  struct Options {
    // The `msg` of summary lines.
    std::string summary_message;
    // Their level.
    LogLevel level = LogLevel::kInfo;
    // The interval (> 0).
    absl::Duration interval = absl::Seconds(10);
    // Peers told apart per interval (>= 1).
    size_t max_peers = 64;
    // Kinds told apart per peer and interval (>= 1).
    size_t max_kinds = 32;
  };

  // `clock` (not owned) must outlive the RepeatLog; occurrences are counted at its time.
  RepeatLog(Options options, Clock* clock);
  // Stops (Stop).
  ~RepeatLog();
  RepeatLog(const RepeatLog&) = delete;
  RepeatLog& operator=(const RepeatLog&) = delete;

  // Counts one occurrence of `kind` (e.g. "<rpc> <code>") from `peer` (an address without
  // its port, so that the connections of one client count together). Returns true when the
  // caller should write this occurrence in full: the peer's first in the interval, or the
  // first of the kOtherPeers summary.
  bool Count(absl::string_view peer, absl::string_view kind);

  // Writes the summaries of the intervals that ended at or before `now`
  // (absl::InfiniteFuture(): of every interval), ordered by interval, then peer
  // (kOtherPeers last), and forgets those intervals.
  void Flush(absl::Time now);

  // Starts a thread that calls Flush at the end of every interval (on the clock's time).
  void Start();

  // Stops the thread, then writes every remaining summary (Flush(InfiniteFuture)).
  // Idempotent; Count still counts afterwards, until the next Flush.
  void Stop();

 private:
  struct Tally {
    int64_t count = 0;                                  // occurrences not written in full
    std::map<std::string, int64_t, std::less<>> kinds;  // their number by kind
  };
  struct Interval {
    std::map<std::string, Tally, std::less<>> peers;
    Tally others;
    std::set<std::string> other_peers;
    bool others_written = false;
  };

  void Add(Tally& tally, absl::string_view kind) const;
  void WriteSummary(absl::Time start, const std::string& peer, size_t peers,
                    const Tally& tally) const;
  void Loop();

  const Options options_;
  Clock* const clock_;
  absl::Mutex mu_;
  std::map<absl::Time, Interval> intervals_ ABSL_GUARDED_BY(mu_);
  absl::Mutex thread_mu_;
  absl::CondVar wake_;
  bool stopping_ ABSL_GUARDED_BY(thread_mu_) = false;
  std::thread thread_;
};

}  // namespace credledger::common
