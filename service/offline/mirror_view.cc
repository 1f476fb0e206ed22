#include "service/offline/mirror_view.h"

namespace credledger::service {

bool MirrorIsCurrent(const v1::IdentityState& identity, const v1::MirrorRecord& mirror) {
  return identity.source().found() && identity.source().source_hash() == mirror.source_hash();
}

}  // namespace credledger::service
