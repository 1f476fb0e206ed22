// IdentityProjection: the identity read model, every `identity/<name>` stream folded by
// EvolveIdentity (docs/mirrors.md; docs/design.md, "Projections"), on NamedStreamProjection
// (named_stream_projection.h: Apply, Get, GetStream, List, ForEachActive, Serialize,
// Deserialize). An identity is active in PHASE_ACTIVE; List(true) also gives the deleted ones
// and streams without an IdentityCreated.
//
// The snapshot is an IdentityFleetState (identities ordered by name).
//
// Thread-safety: not thread-safe; IdentityProjector wraps it with a lock.
#pragma once

#include <cstdint>
#include <optional>

#include "absl/strings/string_view.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"
#include "google/protobuf/repeated_field.h"
#include "projections/named_stream_projection.h"
#include "projections/target_state.h"

namespace credledger::projections {

// Snapshot name and state version of this projection in `projection_snapshots`.
inline constexpr char kIdentityProjectionName[] = "identities";
inline constexpr uint32_t kIdentityProjectionVersion = 1;

// The `identity/<name>` streams, for NamedStreamProjection.
struct IdentityStreams {
  using State = v1::IdentityState;
  using Fleet = v1::IdentityFleetState;
  static constexpr absl::string_view kPrefix = "identity/";
  static constexpr absl::string_view kKind = "identity";
  // EvolveIdentity.
  static void Evolve(State& state, const v1::Event& event, const EventPosition& at);
  // True in PHASE_ACTIVE.
  static bool IsActive(const State& state);
  static google::protobuf::RepeatedPtrField<State>* States(Fleet& fleet);
};

class IdentityProjection : public NamedStreamProjection<IdentityProjection, IdentityStreams> {
 public:
  // One identity by name; nullopt when its stream has no events.
  std::optional<v1::IdentityState> GetIdentity(absl::string_view name) const {
    return GetByName(name);
  }
};

}  // namespace credledger::projections
