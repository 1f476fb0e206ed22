// CredentialProjector: keeps a CredentialProjection current by following the log, writes a
// snapshot every `snapshot_every` events, and tells listeners about every changed Target
// (docs/design.md, "Snapshots"). The machinery (snapshot, catch-up, live following, change
// history, as-of replay) is Projector<CredentialProjection> (projector.h); this class adds
// the credential reads.
//
// Thread-safety: all methods are thread-safe. Listeners run on the projector's thread, in
// seq order, and must not block.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "projections/credential_projection.h"
#include "projections/projector.h"
#include "store/event_store.h"

namespace credledger::projections {

template <>
struct ProjectionTraits<CredentialProjection> {
  using State = v1::TargetState;
  static constexpr const char* kName = kCredentialProjectionName;
  static constexpr uint32_t kVersion = kCredentialProjectionVersion;
  // `key` is a stream name as CredentialProjection::Apply returns them.
  static std::optional<State> GetByKey(const CredentialProjection& p, const std::string& key) {
    return p.GetStream(key);
  }
};

// One Target as of the event at `seq`.
using TargetChange = ProjectionChange<v1::TargetState>;

extern template class Projector<CredentialProjection>;
extern template absl::Status CatchUp(store::EventStore& store, int64_t until_seq,
                                     CredentialProjection& projection);

class CredentialProjector final : public Projector<CredentialProjection> {
 public:
  // Starts following `store` (not owned; must outlive the projector).
  // Errors: kDataLoss for an undecodable event or snapshot; store read errors.
  static absl::StatusOr<std::unique_ptr<CredentialProjector>> Start(store::EventStore* store,
                                                                    Options options);

  // See CredentialProjection::List. `seq` (may be null) receives the position the list is
  // consistent with.
  std::vector<v1::TargetState> List(absl::string_view target_namespace, bool include_finalized,
                                    int64_t* seq) const;
  // The service configuration in force at seq().
  v1::ServiceConfigured service() const;
  // See CredentialProjection::credential_ready_counts (a copy of a few entries).
  ConditionTally::Counts CredentialReadyCounts() const;

 private:
  using Projector::Projector;
};

}  // namespace credledger::projections
