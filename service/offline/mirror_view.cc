#include "service/offline/mirror_view.h"

#include "projections/mirror_naming.h"

namespace credledger::service {

bool MirrorIsCurrent(const v1::IdentityState& identity, const v1::MirrorRecord& mirror) {
  return identity.source().found() &&
         projections::SourceDigestOf(identity.source()) == projections::SourceDigestOf(mirror);
}

}  // namespace credledger::service
