// Whether a credential mirror is current, as the API and the CLI show it.
//
// Thread-safety: a pure function.
#pragma once

#include "credledger/v1/state.pb.h"

namespace credledger::service {

// True when `mirror` holds the data of the source Secret as last observed: the source was
// found and its fingerprint (or, recorded by a version 1 event, its plain hash) is the
// mirror's (projections::SourceDigestOf).
bool MirrorIsCurrent(const v1::IdentityState& identity, const v1::MirrorRecord& mirror);

}  // namespace credledger::service
