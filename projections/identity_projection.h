// IdentityProjection: the identity read model, every `identity/<name>` stream folded by
// EvolveIdentity (domain/captf-credentials.md; DESIGN section 4). Pure: Apply takes stored
// events in seq order and does no I/O.
//
// Serialize gives a deterministic byte string (identities ordered by name), so a full rebuild
// from seq 1 and the incremental path can be compared byte for byte, and snapshots can be
// stored and loaded.
//
// Thread-safety: not thread-safe; IdentityProjector wraps it with a lock.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/state.pb.h"
#include "store/event_store.h"

namespace credledger::projections {

// Snapshot name and state version of this projection in `projection_snapshots`.
inline constexpr char kIdentityProjectionName[] = "identities";
inline constexpr uint32_t kIdentityProjectionVersion = 1;

class IdentityProjection {
 public:
  // Folds `event`. REQUIRES: event.seq == seq() + 1 (events in log order, none skipped).
  // Returns the stream names that changed: the event's own stream when it is an identity
  // stream, nothing otherwise. Events of other streams are not decoded.
  // Errors: kDataLoss when the event is out of order or an identity event does not decode
  // (nothing changes).
  absl::StatusOr<std::vector<std::string>> Apply(const store::RecordedEvent& event);

  // One identity by name; nullopt when its stream has no events.
  std::optional<v1::IdentityState> GetIdentity(absl::string_view name) const;
  // Projector<P>'s lookup (projector.h). Identities are cluster-scoped: `ns` is ignored.
  std::optional<v1::IdentityState> Get(absl::string_view ns, absl::string_view name) const;
  // One identity by stream name ("identity/<name>"); nullopt for other streams.
  std::optional<v1::IdentityState> GetStream(absl::string_view stream) const;
  // Identities ordered by name: the active ones, and also the deleted ones (and streams
  // without an IdentityCreated) when `include_deleted`.
  std::vector<v1::IdentityState> List(bool include_deleted) const;
  // Calls `visit` for every active identity, ordered by name, without copying it.
  void ForEachActive(const std::function<void(const v1::IdentityState&)>& visit) const;
  // The seq of the last event folded; 0 for none.
  int64_t seq() const { return seq_; }

  // Deterministic serialization (an IdentityFleetState).
  std::string Serialize() const;
  // Rebuilds a projection from Serialize output. Errors: kDataLoss when it does not parse.
  static absl::StatusOr<IdentityProjection> Deserialize(absl::string_view bytes);

 private:
  std::map<std::string, v1::IdentityState, std::less<>> identities_;  // by name
  int64_t seq_ = 0;
};

}  // namespace credledger::projections
