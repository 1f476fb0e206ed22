// CredentialProjection: the credential read model of the whole fleet, folded from the log
// (docs/design.md, "Projections"). Pure: Apply takes stored events in seq order and does no
// I/O.
//
// Each Target's state rests encoded (PackedState); the Targets folded last are held decoded
// in a bounded working set (working_set.h), which a bulk fold (Fold) unbounds
// until the next Apply or Compact. The working set changes the memory and the speed, never
// the answers.
//
// Serialize gives a deterministic byte string (targets ordered by stream name), so a full
// rebuild from seq 1 and the incremental path can be compared byte for byte, and snapshots
// can be stored and loaded.
//
// Thread-safety: not thread-safe; CredentialProjector wraps it with a lock.
#pragma once

#include <google/protobuf/arena.h>

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/state.pb.h"
#include "projections/condition_tally.h"
#include "projections/key_index.h"
#include "projections/packed_state.h"
#include "projections/working_set.h"
#include "store/event_store.h"

namespace credledger::projections {

// Snapshot name and state version of this projection in `projection_snapshots`.
inline constexpr char kCredentialProjectionName[] = "credentials";
inline constexpr uint32_t kCredentialProjectionVersion = 2;

class CredentialProjection {
 public:
  CredentialProjection() = default;
  // A projection whose working set holds at most `working_set_bound` Targets decoded
  // (kWorkingSetBound by default). REQUIRES: working_set_bound >= 1.
  explicit CredentialProjection(size_t working_set_bound) : working_(working_set_bound) {}
  // Moves keep the index by stream valid: the map's nodes move with it. A copy would not,
  // hence none.
  CredentialProjection(CredentialProjection&&) = default;
  CredentialProjection& operator=(CredentialProjection&&) = default;
  CredentialProjection(const CredentialProjection&) = delete;
  CredentialProjection& operator=(const CredentialProjection&) = delete;

  // Folds `event`. REQUIRES: event.seq == seq() + 1 (events in log order, none skipped).
  // Returns the stream names of the Targets that changed, in stream order: the event's own
  // Target, or for ServiceConfigured every Target whose AgentCredentialReady condition changed.
  // Events of other streams than Target streams, except ServiceConfigured, are passed over
  // without being decoded.
  // Ends a bulk fold first (Compact), when one was open.
  // Errors: kDataLoss when the event is out of order, or is one this projection folds and
  // does not decode (nothing changes).
  absl::StatusOr<std::vector<std::string>> Apply(const store::RecordedEvent& event);
  // Apply without listing the changed Targets, for a fold whose state is read only when it is
  // done (projections::ApplyInBulk): the same state, the same errors, no list to allocate.
  // Opens a bulk fold: every Target it touches stays decoded until Apply or Compact.
  absl::Status Fold(const store::RecordedEvent& event);
  // Encodes every Target held decoded and bounds the working set again: for a projection kept
  // after a bulk fold (Projector's start). Changes no answer.
  void Compact() { working_.Compact(); }
  // Targets held decoded now (the working set's size; at most its bound outside a bulk
  // fold).
  size_t decoded_states() const { return working_.size(); }

  // One Target's state by namespace and name; nullopt when the stream has no events.
  std::optional<v1::TargetState> Get(absl::string_view target_namespace,
                                     absl::string_view name) const;
  // One Target's state by stream name ("target/<namespace>/<name>").
  std::optional<v1::TargetState> GetStream(absl::string_view stream) const;
  // Targets ordered by namespace then name; only `target_namespace` when non-empty.
  // Finalized Targets are left out unless `include_finalized`.
  std::vector<v1::TargetState> List(absl::string_view target_namespace,
                                    bool include_finalized) const;
  const v1::ServiceConfigured& service() const { return service_; }
  // The AgentCredentialReady (status, reason) of registered Targets (active or deleting;
  // not finalized), counted as events are folded (metrics).
  const ConditionTally::Counts& credential_ready_counts() const { return ready_.counts(); }
  // The seq of the last event folded; 0 for none.
  int64_t seq() const { return seq_; }

  // Deterministic serialization (a CredentialFleetState).
  std::string Serialize() const;
  // Rebuilds a projection from Serialize output, every Target at rest (encoded), decoding one
  // at a time. Errors: kDataLoss when it does not parse.
  static absl::StatusOr<CredentialProjection> Deserialize(absl::string_view bytes);

 private:
  using PackedTarget = PackedState<v1::TargetState>;

  v1::ServiceConfigured service_;
  // Takes `state` out of ready_ (before a change) or puts it in (after), when counted.
  void Uncount(const v1::TargetState& state);
  void Count(const v1::TargetState& state);
  // Apply, adding the changed streams to `changed` unless it is null.
  absl::Status ApplyTo(const store::RecordedEvent& event, std::vector<std::string>* changed);
  // The state of `stream` in targets_ and by_stream_, added empty when it has none, opened in
  // working_ (valid until the next Open).
  v1::TargetState& Add(absl::string_view stream);
  // The item of `stream` in targets_ and by_stream_, added empty (and encoded) when it has
  // none.
  PackedTarget& Slot(absl::string_view stream);

  // Where Apply decodes an event: an arena, reset for every event, over a block of its own, so
  // that an event's messages and repeated fields come from the block (a larger event takes
  // more blocks, freed at the next reset; strings longer than 15 bytes still use the heap).
  // Not state; behind a pointer so that the projection can move.
  struct DecodeScratch {
    DecodeScratch();
    alignas(std::max_align_t) char block[16 * 1024];
    google::protobuf::Arena arena;
  };
  std::unique_ptr<DecodeScratch> scratch_;

  std::map<std::string, PackedTarget> targets_;  // by stream name
  // The same states by stream name, so that a fold finds an event's Target by hashing its
  // stream name instead of comparing strings down the tree (map nodes do not move, and a
  // move of the projection moves them with it).
  KeyIndex<PackedTarget> by_stream_;
  // The states of targets_ held decoded.
  WorkingSet<PackedTarget> working_;
  int64_t seq_ = 0;
  // Derived from targets_ (not serialized).
  ConditionTally ready_;
};

}  // namespace credledger::projections
