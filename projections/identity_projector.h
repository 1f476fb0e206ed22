// IdentityProjector: keeps an IdentityProjection current by following the log, writes a
// snapshot every `snapshot_every` events, and tells listeners about every changed identity
// (docs/design.md, "Snapshots"). The machinery (snapshot, catch-up, live following, change
// history, as-of replay) is Projector<IdentityProjection> (projector.h); this class adds the
// identity reads. Identities are cluster-scoped: the inherited Get(namespace, name) ignores the
// namespace; GetIdentity(name) says the same without it.
//
// Thread-safety: all methods are thread-safe. Listeners run on the projector's thread, in
// seq order, and must not block.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "projections/identity_projection.h"
#include "projections/projector.h"
#include "store/event_store.h"

namespace credledger::projections {

template <>
struct ProjectionTraits<IdentityProjection> {
  using State = v1::IdentityState;
  static constexpr const char* kName = kIdentityProjectionName;
  static constexpr uint32_t kVersion = kIdentityProjectionVersion;
  // `key` is a stream name as IdentityProjection::Apply returns them.
  static std::optional<State> GetByKey(const IdentityProjection& p, const std::string& key) {
    return p.GetStream(key);
  }
};

// One identity as of the event at `seq`.
using IdentityChange = ProjectionChange<v1::IdentityState>;

extern template class Projector<IdentityProjection>;
extern template absl::Status CatchUp(store::EventStore& store, int64_t until_seq,
                                     IdentityProjection& projection);

// The change history an IdentityProjector keeps (Options::change_history): none. Nothing
// resumes identity watches, and a kept change (or one handed to a change listener) is a copy
// of a whole identity, a few hundred kilobytes for one bound in a thousand namespaces, made
// for every event. Follow identities with AddKeyListener instead.
inline constexpr size_t kIdentityChangeHistory = 0;

class IdentityProjector final : public Projector<IdentityProjection> {
 public:
  // Starts following `store` (not owned; must outlive the projector).
  // Errors: kDataLoss for an undecodable identity event or snapshot; store read errors.
  static absl::StatusOr<std::unique_ptr<IdentityProjector>> Start(store::EventStore* store,
                                                                  Options options);

  // One identity by name; nullopt when its stream has no events.
  std::optional<v1::IdentityState> GetIdentity(absl::string_view name) const;
  // See IdentityProjection::List. `seq` (may be null) receives the position the list is
  // consistent with.
  std::vector<v1::IdentityState> List(bool include_deleted, int64_t* seq) const;
  // Calls `visit` for every active identity under the projector's lock, without copies.
  // `visit` must be short, must not block and must not call the projector.
  void VisitActive(const std::function<void(const v1::IdentityState&)>& visit) const;

 private:
  using Projector::Projector;
};

}  // namespace credledger::projections
