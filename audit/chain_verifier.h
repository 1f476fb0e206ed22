// ChainVerifier: checks events, in the order given, against the log's hash rules
// (docs/log-format.md, "Verifying a log by hand"; docs/audit.md, "Verifying an export, step by
// step"). Pure: no I/O.
//
// For every event it checks, unconditionally: the digest recomputed from the stored fields;
// chain_hash = SHA-256(prev_chain_hash || digest); seq strictly increasing; stream_version
// strictly increasing within a stream; when two consecutive seqs are both present, the later
// one's prev_chain_hash is the earlier one's chain_hash, and seq 1's is 32 zero bytes; when
// two consecutive versions of a stream are both present, the later one's stream_hash chains
// from the earlier one's; a stream_version 0 chains from 32 zero bytes.
//
// Gaps are not failures by themselves (a filtered export skips events); the verifier records
// the first missing seq and, per stream, the first missing version or a stream that does not
// start at version 0, so the caller can decide, once it knows what the input claims to hold,
// which of them are failures (FirstSeqGap, FirstStreamGap).
//
// Thread-safety: not thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "audit/verification.h"
#include "store/event_store.h"

namespace credledger::audit {

class ChainVerifier {
 public:
  // The last event seen of one stream.
  struct StreamState {
    int64_t stream_version = 0;
    std::string stream_hash;
    // The stream_version the stream's first event had here.
    int64_t first_version = 0;
  };

  // Checks `event` against the events added before. Returns the first problem it finds
  // (kDigestMismatch, kChainBreak, kStreamChainBreak, kReordering: "seq N follows seq M", or
  // "seq N appears twice" right after itself); nothing is recorded then.
  std::optional<Problem> Add(const store::RecordedEvent& event);

  int64_t events() const { return events_; }
  // seq and chain_hash of the first and the last event added; 0 / empty when none.
  int64_t first_seq() const { return first_seq_; }
  int64_t last_seq() const { return last_seq_; }
  const std::string& last_chain_hash() const { return last_chain_hash_; }
  // How many of the last events added ChainHashAt answers for. An export's newest
  // checkpoint trails its head by about the checkpoint interval (1000 events by default),
  // so a window this size finds it without memory that grows with the input.
  static constexpr size_t kRecentChainHashes = 65536;
  // The chain_hash of the event at `seq` if it was added and is among the last
  // kRecentChainHashes events added (for checking a checkpoint or the trailer's head once
  // the trailer, the last line of an export, is known); nullopt otherwise.
  std::optional<std::string> ChainHashAt(int64_t seq) const;
  // Every stream seen, by name.
  const std::map<std::string, StreamState>& streams() const { return streams_; }

  // The first missing seq between two added events (a gap of the global sequence), as a
  // problem of kind kProblemGap naming the missing range; nullopt when the seqs added are
  // consecutive.
  const std::optional<Problem>& FirstSeqGap() const { return seq_gap_; }
  // The first event (by the order added) that skipped versions of its stream, or, when
  // `streams_from_start`, that began its stream at a version other than 0; kind
  // kProblemGap. nullopt when none.
  std::optional<Problem> FirstStreamGap(bool streams_from_start) const;

 private:
  // Notes the first skipped seq, late stream start and skipped stream version `event` shows;
  // `previous` is its stream's last event here (null for none).
  void RecordGaps(const store::RecordedEvent& event, const StreamState* previous);
  // Makes `event`, which passed every check, the last one added.
  void Record(const store::RecordedEvent& event);

  int64_t events_ = 0;
  int64_t first_seq_ = 0;
  int64_t last_seq_ = 0;
  std::string last_chain_hash_;
  std::map<std::string, StreamState> streams_;
  // (seq, chain_hash) of the last kRecentChainHashes events added, in seq order.
  std::deque<std::pair<int64_t, std::array<char, 32>>> recent_;
  std::optional<Problem> seq_gap_;
  std::optional<Problem> stream_gap_;        // a skipped version within a stream
  std::optional<Problem> late_stream_start_;  // a stream beginning above version 0
};

}  // namespace credledger::audit
