#include "projections/identity_projector.h"

#include "common/status_macros.h"

namespace credledger::projections {

template class Projector<IdentityProjection>;
template absl::Status CatchUp(store::EventStore& store, int64_t until_seq,
                              IdentityProjection& projection);

absl::StatusOr<std::unique_ptr<IdentityProjector>> IdentityProjector::Start(
    store::EventStore* store, Options options) {
  std::unique_ptr<IdentityProjector> projector(new IdentityProjector(store, options));
  RETURN_IF_ERROR(projector->Follow());
  return projector;
}

std::optional<v1::IdentityState> IdentityProjector::GetIdentity(absl::string_view name) const {
  return Read([&](const IdentityProjection& p) { return p.GetIdentity(name); });
}

std::vector<v1::IdentityState> IdentityProjector::List(bool include_deleted, int64_t* seq) const {
  return Read([&](const IdentityProjection& p) {
    if (seq != nullptr) *seq = p.seq();
    return p.List(include_deleted);
  });
}

void IdentityProjector::VisitActive(
    const std::function<void(const v1::IdentityState&)>& visit) const {
  Read([&](const IdentityProjection& p) {
    p.ForEachActive(visit);
    return 0;
  });
}

}  // namespace credledger::projections
