#include "audit/log_anchors.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "audit/signed_records.h"
#include "common/status_macros.h"

namespace credledger::audit {
namespace {

// Checkpoints per read while looking for the newest trusted one.
constexpr int kCheckpointPage = 256;

// The chain_hash of the event at `seq`; nullopt when the log does not hold it.
absl::StatusOr<std::optional<std::string>> ChainHashAt(store::EventStore& store, int64_t seq) {
  ASSIGN_OR_RETURN(std::optional<store::RecordedEvent> event, store.ReadEvent(seq));
  if (!event.has_value()) return std::nullopt;
  return std::move(event->chain_hash);
}

// Why `checkpoint` does not vouch for `store`'s event at its seq; empty when it does.
absl::StatusOr<std::string> Distrust(store::EventStore& store, const KeyRing& trusted,
                                     const v1::Checkpoint& checkpoint) {
  if (absl::Status signature = VerifyCheckpoint(trusted, checkpoint); !signature.ok()) {
    return std::string(signature.message());
  }
  ASSIGN_OR_RETURN(std::optional<std::string> chain_hash, ChainHashAt(store, checkpoint.seq()));
  if (!chain_hash.has_value()) {
    return absl::StrCat("the log ends at seq ", store.HeadSeq(), ", before the checkpoint at seq ",
                        checkpoint.seq());
  }
  if (*chain_hash != checkpoint.chain_hash()) {
    return absl::StrCat("seq ", checkpoint.seq(), " has chain_hash ", HashPrefix(*chain_hash),
                        ", the checkpoint signed ", HashPrefix(checkpoint.chain_hash()));
  }
  return std::string();
}

}  // namespace

absl::StatusOr<CheckpointAge> CheckCheckpointAge(store::EventStore& store, const KeyRing& trusted,
                                                 int64_t max_unsigned_events) {
  CheckpointAge age;
  age.head_seq = store.HeadSeq();
  if (age.head_seq == 0) return age;
  ASSIGN_OR_RETURN(std::optional<std::string> head_hash, ChainHashAt(store, age.head_seq));
  age.head_chain_hash = head_hash.value_or("");
  // Checkpoints at or after this seq are recent enough.
  const int64_t oldest = std::max<int64_t>(1, age.head_seq - max_unsigned_events);
  std::string last_distrust;
  int64_t after = oldest - 1;
  while (true) {
    ASSIGN_OR_RETURN(std::vector<v1::Checkpoint> page,
                     store.ReadCheckpoints(after, kCheckpointPage));
    for (const v1::Checkpoint& checkpoint : page) {
      ASSIGN_OR_RETURN(std::string distrust, Distrust(store, trusted, checkpoint));
      if (distrust.empty()) {
        age.trusted = checkpoint;
      } else {
        last_distrust = absl::StrCat(" (the checkpoint at seq ", checkpoint.seq(),
                                     " does not count: ", distrust, ")");
      }
    }
    if (static_cast<int>(page.size()) < kCheckpointPage) break;
    after = page.back().seq();
  }
  if (age.trusted.has_value()) return age;
  ASSIGN_OR_RETURN(std::optional<v1::Checkpoint> latest, store.LatestCheckpoint());
  if (!latest.has_value()) {
    age.refusal = absl::StrCat("the log holds ", age.head_seq,
                               " events and no checkpoint (a keyed service signs its head at "
                               "least every ",
                               max_unsigned_events, " events)");
  } else if (latest->seq() < oldest) {
    age.refusal = absl::StrCat("the newest checkpoint is at seq ", latest->seq(), ", ",
                               age.head_seq - latest->seq(), " events behind the head at seq ",
                               age.head_seq, "; at most ", max_unsigned_events, " may be");
  } else {
    age.refusal =
        absl::StrCat("no checkpoint of the last ", max_unsigned_events,
                     " events is signed by a trusted key and matches the log", last_distrust);
  }
  return age;
}

absl::StatusOr<std::optional<Problem>> CheckWitnessed(store::EventStore& store,
                                                      const KeyRing& trusted,
                                                      const std::vector<v1::Checkpoint>& witnessed,
                                                      absl::string_view name) {
  if (witnessed.empty()) {
    if (store.HeadSeq() == 0) return std::nullopt;
    return Problem{0, kProblemWitnessMismatch,
                   absl::StrCat("the witness ", name, " holds no checkpoint, but the log holds ",
                                store.HeadSeq(), " events")};
  }
  for (auto it = witnessed.rbegin(); it != witnessed.rend(); ++it) {
    ASSIGN_OR_RETURN(std::string distrust, Distrust(store, trusted, *it));
    if (!distrust.empty()) {
      return Problem{it->seq(), kProblemWitnessMismatch,
                     absl::StrCat("the checkpoint the witness ", name, " holds at seq ", it->seq(),
                                  ": ", distrust)};
    }
  }
  return std::nullopt;
}

absl::Status CheckAnchorsOffline(store::EventStore& log, const KeyRing& keys,
                                 int64_t max_unsigned_events,
                                 const std::vector<v1::Checkpoint>* witnessed,
                                 absl::string_view witness_name, Verdict& verdict) {
  if (!verdict.ok()) return absl::OkStatus();
  if (witnessed != nullptr) {
    ASSIGN_OR_RETURN(std::optional<Problem> problem,
                     CheckWitnessed(log, keys, *witnessed, witness_name));
    if (problem.has_value()) {
      verdict.problem = *std::move(problem);
      return absl::OkStatus();
    }
    verdict.witnessed = Verdict::Witnessed{std::string(witness_name),
                                           static_cast<int64_t>(witnessed->size()),
                                           witnessed->empty() ? 0 : witnessed->back().seq()};
  }
  ASSIGN_OR_RETURN(CheckpointAge age, CheckCheckpointAge(log, keys, max_unsigned_events));
  if (!age.refusal.empty()) verdict.problem = Problem{0, kProblemUnsignedTail, age.refusal};
  return absl::OkStatus();
}

}  // namespace credledger::audit
