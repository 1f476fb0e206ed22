#include "projections/credential_projector.h"

#include "common/status_macros.h"

namespace credledger::projections {

template class Projector<CredentialProjection>;
template absl::Status CatchUp(store::EventStore& store, int64_t until_seq,
                              CredentialProjection& projection);

absl::StatusOr<std::unique_ptr<CredentialProjector>> CredentialProjector::Start(
    store::EventStore* store, Options options) {
  std::unique_ptr<CredentialProjector> projector(new CredentialProjector(store, options));
  RETURN_IF_ERROR(projector->Follow());
  return projector;
}

std::vector<v1::TargetState> CredentialProjector::List(absl::string_view target_namespace,
                                                       bool include_finalized,
                                                       int64_t* seq) const {
  return Read([&](const CredentialProjection& p) {
    if (seq != nullptr) *seq = p.seq();
    return p.List(target_namespace, include_finalized);
  });
}

v1::ServiceConfigured CredentialProjector::service() const {
  return Read([](const CredentialProjection& p) { return p.service(); });
}

ConditionTally::Counts CredentialProjector::CredentialReadyCounts() const {
  return Read([](const CredentialProjection& p) { return p.credential_ready_counts(); });
}

}  // namespace credledger::projections
