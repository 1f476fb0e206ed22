#include "audit/chain_verifier.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "store/log_hash.h"

namespace credledger::audit {
namespace {

// The link of the global chain into `event`: seq 1 starts from 32 zero bytes, any other seq
// from the chain_hash of seq - 1 when that event came just before.
std::optional<Problem> CheckGlobalLink(const store::RecordedEvent& event, bool follows,
                                       const std::string& previous_chain_hash) {
  if (event.seq == 1 && event.prev_chain_hash != store::ZeroHash()) {
    return Problem{event.seq, kProblemChainBreak,
                   absl::StrCat("the prev_chain_hash of seq 1 is ",
                                HashPrefix(event.prev_chain_hash), ", not 32 zero bytes")};
  }
  if (follows && event.prev_chain_hash != previous_chain_hash) {
    return Problem{event.seq, kProblemChainBreak,
                   absl::StrCat("the prev_chain_hash of seq ", event.seq, " is ",
                                HashPrefix(event.prev_chain_hash), ", the chain_hash of seq ",
                                event.seq - 1, " is ", HashPrefix(previous_chain_hash))};
  }
  return std::nullopt;
}

// The event's digest (recomputed as `digest`) and its chain_hash from prev_chain_hash.
std::optional<Problem> CheckOwnHashes(const store::RecordedEvent& event,
                                      const std::string& digest) {
  if (digest != event.digest) {
    return Problem{event.seq, kProblemDigestMismatch,
                   absl::StrCat("the stored bytes of seq ", event.seq, " hash to ",
                                HashPrefix(digest), ", the event states ",
                                HashPrefix(event.digest))};
  }
  const std::string chain_hash = store::NextChainHash(event.prev_chain_hash, digest);
  if (chain_hash != event.chain_hash) {
    return Problem{event.seq, kProblemChainBreak,
                   absl::StrCat("the chain_hash of seq ", event.seq, " is ",
                                HashPrefix(event.chain_hash),
                                ", SHA-256(prev_chain_hash || digest) is ",
                                HashPrefix(chain_hash))};
  }
  return std::nullopt;
}

// The link of the event's stream into it, given the stream's last event here (`previous`,
// null for none): a lower version is a reordering; version 0 chains from 32 zero bytes and
// the version after `previous` from its stream_hash; after skipped versions nothing is known.
std::optional<Problem> CheckStreamLink(const store::RecordedEvent& event,
                                       const std::string& digest,
                                       const ChainVerifier::StreamState* previous) {
  const std::string* previous_hash = nullptr;
  if (previous == nullptr) {
    if (event.stream_version == 0) previous_hash = &store::ZeroHash();
  } else if (event.stream_version <= previous->stream_version) {
    return Problem{event.seq, kProblemReordering,
                   absl::StrCat("stream ", event.stream, ": version ", event.stream_version,
                                " (seq ", event.seq, ") follows version ",
                                previous->stream_version)};
  } else if (event.stream_version == previous->stream_version + 1) {
    previous_hash = &previous->stream_hash;
  }
  if (previous_hash == nullptr) return std::nullopt;
  const std::string expected = store::NextChainHash(*previous_hash, digest);
  if (expected == event.stream_hash) return std::nullopt;
  return Problem{event.seq, kProblemStreamChainBreak,
                 absl::StrCat("the stream_hash of seq ", event.seq, " (stream ", event.stream,
                              ", version ", event.stream_version, ") is ",
                              HashPrefix(event.stream_hash), ", chained from ",
                              event.stream_version == 0
                                  ? std::string("32 zero bytes")
                                  : absl::StrCat("version ", event.stream_version - 1),
                              " it is ", HashPrefix(expected))};
}

}  // namespace

std::optional<Problem> ChainVerifier::Add(const store::RecordedEvent& event) {
  const std::string digest = store::EventDigest(event);
  if (auto problem = CheckOwnHashes(event, digest)) return problem;
  if (events_ > 0 && event.seq <= last_seq_) {
    return Problem{event.seq, kProblemReordering,
                   event.seq == last_seq_
                       ? absl::StrCat("seq ", event.seq, " appears twice")
                       : absl::StrCat("seq ", event.seq, " follows seq ", last_seq_)};
  }
  const bool follows = events_ > 0 && event.seq == last_seq_ + 1;
  if (auto problem = CheckGlobalLink(event, follows, last_chain_hash_)) return problem;
  auto stream = streams_.find(event.stream);
  const StreamState* previous = stream == streams_.end() ? nullptr : &stream->second;
  if (auto problem = CheckStreamLink(event, digest, previous)) return problem;
  RecordGaps(event, previous);
  Record(event);
  return std::nullopt;
}

void ChainVerifier::RecordGaps(const store::RecordedEvent& event,
                               const StreamState* previous) {
  if (events_ > 0 && event.seq > last_seq_ + 1 && !seq_gap_.has_value()) {
    seq_gap_ =
        Problem{last_seq_ + 1, kProblemGap, MissingRange("seq", last_seq_ + 1, event.seq - 1)};
  }
  if (previous == nullptr && event.stream_version > 0 && !late_stream_start_.has_value()) {
    late_stream_start_ =
        Problem{event.seq, kProblemGap,
                absl::StrCat("stream ", event.stream, " begins at version ", event.stream_version,
                             " (seq ", event.seq, "): ",
                             MissingRange("version", 0, event.stream_version - 1))};
  }
  if (previous != nullptr && event.stream_version > previous->stream_version + 1 &&
      !stream_gap_.has_value()) {
    stream_gap_ = Problem{
        event.seq, kProblemGap,
        absl::StrCat("stream ", event.stream, ": ",
                     MissingRange("version", previous->stream_version + 1,
                                  event.stream_version - 1),
                     " (version ", event.stream_version, " at seq ", event.seq,
                     " follows version ", previous->stream_version, ")")};
  }
}

void ChainVerifier::Record(const store::RecordedEvent& event) {
  auto [stream, added] = streams_.try_emplace(event.stream);
  if (added) stream->second.first_version = event.stream_version;
  stream->second.stream_version = event.stream_version;
  stream->second.stream_hash = event.stream_hash;
  if (events_ == 0) first_seq_ = event.seq;
  ++events_;
  last_seq_ = event.seq;
  last_chain_hash_ = event.chain_hash;
  if (recent_.size() == kRecentChainHashes) recent_.pop_front();
  recent_.emplace_back(event.seq, std::array<char, 32>{});
  // chain_hash is 32 bytes: CheckOwnHashes compared it with a SHA-256 output.
  std::copy(event.chain_hash.begin(), event.chain_hash.end(), recent_.back().second.begin());
}

std::optional<std::string> ChainVerifier::ChainHashAt(int64_t seq) const {
  auto it = std::lower_bound(
      recent_.begin(), recent_.end(), seq,
      [](const std::pair<int64_t, std::array<char, 32>>& entry, int64_t wanted) {
        return entry.first < wanted;
      });
  if (it == recent_.end() || it->first != seq) return std::nullopt;
  return std::string(it->second.begin(), it->second.end());
}

std::optional<Problem> ChainVerifier::FirstStreamGap(bool streams_from_start) const {
  if (!streams_from_start || !late_stream_start_.has_value()) return stream_gap_;
  if (!stream_gap_.has_value() || late_stream_start_->seq < stream_gap_->seq) {
    return late_stream_start_;
  }
  return stream_gap_;
}

}  // namespace credledger::audit
