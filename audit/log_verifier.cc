#include "audit/log_verifier.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "audit/chain_verifier.h"
#include "audit/signed_records.h"
#include "audit/snapshot_seal.h"
#include "common/status_macros.h"

namespace credledger::audit {
namespace {

// Events and checkpoints per read: each read is one short read transaction.
constexpr int kPageSize = 1000;

// The checkpoints with seq in (after_seq, last_seq], read page by page in seq order.
class CheckpointCursor {
 public:
  CheckpointCursor(store::EventStore& store, int64_t after_seq, int64_t last_seq)
      : store_(store), after_seq_(after_seq), last_seq_(last_seq) {}

  // The next checkpoint, nullptr after the last one. Errors: store read errors.
  absl::StatusOr<const v1::Checkpoint*> Peek() {
    if (index_ == page_.size()) {
      if (after_seq_ >= last_seq_) return nullptr;
      ASSIGN_OR_RETURN(page_, store_.ReadCheckpoints(after_seq_, kPageSize));
      index_ = 0;
      after_seq_ = page_.empty() ? last_seq_ : page_.back().seq();
      if (page_.empty()) return nullptr;
    }
    if (page_[index_].seq() > last_seq_) return nullptr;
    return &page_[index_];
  }
  // Moves past the checkpoint Peek returned.
  void Pop() { ++index_; }

 private:
  store::EventStore& store_;
  int64_t after_seq_;
  const int64_t last_seq_;
  std::vector<v1::Checkpoint> page_;
  size_t index_ = 0;
};

Problem NoEventFor(const v1::Checkpoint& checkpoint) {
  return Problem{checkpoint.seq(), kProblemCheckpointMismatch,
                 absl::StrCat("the checkpoint at seq ", checkpoint.seq(),
                              " names an event the log does not hold")};
}

// `checkpoint` against `chain_hash`, the chain_hash the log holds at its seq, then its
// signature when `key` is set; counts it in `verdict` when both were checked.
std::optional<Problem> CheckCheckpoint(const v1::Checkpoint& checkpoint,
                                       const std::string& chain_hash, const KeyRing* key,
                                       Verdict& verdict) {
  if (checkpoint.chain_hash() != chain_hash) {
    return Problem{checkpoint.seq(), kProblemCheckpointMismatch,
                   absl::StrCat("the checkpoint at seq ", checkpoint.seq(), " states chain hash ",
                                HashPrefix(checkpoint.chain_hash()), ", the event at seq ",
                                checkpoint.seq(), " has ", HashPrefix(chain_hash))};
  }
  if (key == nullptr) return std::nullopt;
  if (absl::Status signature = VerifyCheckpoint(*key, checkpoint); !signature.ok()) {
    return Problem{checkpoint.seq(), kProblemBadSignature, std::string(signature.message())};
  }
  ++verdict.checkpoints_checked;
  verdict.checkpoint = checkpoint;
  return std::nullopt;
}

// Checks every checkpoint of `cursor` up to `event`: the one at its seq against its
// chain_hash, one before it (or any, when `event` is null: the log ended) names an event the
// log lacks. Errors: store read errors.
absl::StatusOr<std::optional<Problem>> CheckCheckpointsUpTo(CheckpointCursor& cursor,
                                                            const store::RecordedEvent* event,
                                                            const KeyRing* key,
                                                            Verdict& verdict) {
  for (;;) {
    ASSIGN_OR_RETURN(const v1::Checkpoint* checkpoint, cursor.Peek());
    if (checkpoint == nullptr) return std::nullopt;
    if (event != nullptr && checkpoint->seq() > event->seq) return std::nullopt;
    if (event == nullptr || checkpoint->seq() < event->seq) return NoEventFor(*checkpoint);
    if (auto problem = CheckCheckpoint(*checkpoint, event->chain_hash, key, verdict)) {
      return problem;
    }
    cursor.Pop();
  }
}

// `checkpoint` against the event the log holds at its seq, read on its own (its digest and
// chain_hash included). Errors: store read errors.
absl::StatusOr<std::optional<Problem>> CheckCheckpointAlone(store::EventStore& store,
                                                            const v1::Checkpoint& checkpoint,
                                                            const KeyRing* key,
                                                            Verdict& verdict) {
  ASSIGN_OR_RETURN(std::vector<store::RecordedEvent> events,
                   store.ReadAll(checkpoint.seq() - 1, 1));
  if (events.empty() || events[0].seq != checkpoint.seq()) return NoEventFor(checkpoint);
  ChainVerifier alone;
  if (auto problem = alone.Add(events[0])) return problem;
  return CheckCheckpoint(checkpoint, events[0].chain_hash, key, verdict);
}

// One event read from the database: the next seq (the first one `first_seq`), the chain
// rules, no skipped stream version, and streams from version 0 when `streams_from_start`.
std::optional<Problem> CheckEvent(ChainVerifier& chain, const store::RecordedEvent& event,
                                  int64_t first_seq, bool streams_from_start) {
  if (chain.events() == 0 && event.seq > first_seq) {
    return Problem{first_seq, kProblemGap, MissingRange("seq", first_seq, event.seq - 1)};
  }
  if (auto problem = chain.Add(event)) return problem;
  if (chain.FirstSeqGap().has_value()) return chain.FirstSeqGap();
  return chain.FirstStreamGap(streams_from_start);
}

// Reads the events from `first_seq` to the end of the log page by page and checks them
// (CheckEvent) and the checkpoints of `cursor` as their events pass; a log ending before
// `verdict.head_seq` is truncated, a checkpoint after its end names a missing event. Fills
// the counts and the problem of `verdict`. Errors: store read errors.
absl::Status ScanLog(store::EventStore& store, int64_t first_seq, bool streams_from_start,
                     CheckpointCursor& cursor, const KeyRing* key, Verdict& verdict) {
  ChainVerifier chain;
  std::optional<Problem> problem;
  for (int64_t after_seq = first_seq - 1; !problem.has_value();) {
    ASSIGN_OR_RETURN(std::vector<store::RecordedEvent> page, store.ReadAll(after_seq, kPageSize));
    if (page.empty()) break;
    for (const store::RecordedEvent& event : page) {
      problem = CheckEvent(chain, event, first_seq, streams_from_start);
      if (!problem.has_value()) {
        ASSIGN_OR_RETURN(problem, CheckCheckpointsUpTo(cursor, &event, key, verdict));
      }
      if (problem.has_value()) break;
    }
    after_seq = page.back().seq;
  }
  if (!problem.has_value() && chain.last_seq() < verdict.head_seq) {
    problem = Problem{chain.last_seq() + 1, kProblemTruncated,
                      absl::StrCat("the log's head is seq ", verdict.head_seq,
                                   ", its events end at seq ", chain.last_seq())};
  }
  if (!problem.has_value()) {
    ASSIGN_OR_RETURN(problem, CheckCheckpointsUpTo(cursor, nullptr, key, verdict));
  }
  verdict.events = chain.events();
  verdict.first_seq = chain.first_seq();
  verdict.last_seq = chain.last_seq();
  verdict.head_seq = std::max(verdict.head_seq, chain.last_seq());
  verdict.problem = std::move(problem);
  return absl::OkStatus();
}

// Every stored projection snapshot, by seq then projection: its seal against the chain_hash
// of the event the log holds at its seq and the keys of `keys` (CheckSnapshot). Counts the
// ones that verify in `verdict`; the first that does not is the problem. Errors: store read
// errors.
absl::StatusOr<std::optional<Problem>> CheckSnapshots(store::EventStore& store, const KeyRing& keys,
                                                      Verdict& verdict) {
  verdict.snapshots_checked = 0;
  ASSIGN_OR_RETURN(std::vector<store::SnapshotId> ids, store.ListSnapshots());
  for (const store::SnapshotId& id : ids) {
    ASSIGN_OR_RETURN(std::optional<store::Snapshot> snapshot,
                     store.LoadSnapshot(id.projection, id.seq));
    if (!snapshot.has_value() || snapshot->seq != id.seq) continue;  // replaced meanwhile
    ASSIGN_OR_RETURN(std::optional<store::RecordedEvent> event, store.ReadEvent(id.seq));
    absl::Status checked =
        CheckSnapshot(keys, *snapshot, event.has_value() ? event->chain_hash : std::string());
    if (!checked.ok()) {
      return Problem{id.seq, kProblemSnapshotMismatch, std::string(checked.message())};
    }
    ++*verdict.snapshots_checked;
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<Verdict> VerifyLog(store::EventStore& store, const KeyRing& public_key,
                                  int64_t min_seq) {
  Verdict verdict;
  // Every checkpoint read names an event at or before the head read next, so a writer
  // appending meanwhile cannot make a checkpoint look like it names a missing event.
  ASSIGN_OR_RETURN(std::optional<v1::Checkpoint> latest, store.LatestCheckpoint());
  verdict.head_seq = store.HeadSeq();
  CheckpointCursor cursor(store, 0, latest.has_value() ? latest->seq() : 0);
  RETURN_IF_ERROR(ScanLog(store, 1, /*streams_from_start=*/true, cursor, &public_key, verdict));
  if (verdict.ok()) {
    ASSIGN_OR_RETURN(verdict.problem, CheckSnapshots(store, public_key, verdict));
  }
  if (verdict.ok() && verdict.head_seq < min_seq) {
    verdict.problem = Problem{0, kProblemStale,
                              absl::StrCat("the log ends at head seq ", verdict.head_seq,
                                           ", before --min-seq ", min_seq)};
  }
  return verdict;
}

absl::StatusOr<Verdict> VerifyLogTail(store::EventStore& store, int64_t events,
                                      const KeyRing* public_key) {
  if (events <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("tail check: events must be > 0, got ", events));
  }
  Verdict verdict;
  ASSIGN_OR_RETURN(std::optional<v1::Checkpoint> latest, store.LatestCheckpoint());
  verdict.head_seq = store.HeadSeq();
  const int64_t first_seq = std::max<int64_t>(1, verdict.head_seq - events + 1);
  // A checkpoint before the window is checked first, so the verdict names the first bad
  // seq; one inside it as its event passes.
  const bool before_window = latest.has_value() && latest->seq() < first_seq;
  if (before_window) {
    ASSIGN_OR_RETURN(verdict.problem, CheckCheckpointAlone(store, *latest, public_key, verdict));
    if (!verdict.ok()) return verdict;
  }
  const int64_t checkpoint_seq = latest.has_value() && !before_window ? latest->seq() : 0;
  CheckpointCursor cursor(store, std::max<int64_t>(checkpoint_seq - 1, 0), checkpoint_seq);
  RETURN_IF_ERROR(
      ScanLog(store, first_seq, /*streams_from_start=*/false, cursor, public_key, verdict));
  return verdict;
}

}  // namespace credledger::audit
