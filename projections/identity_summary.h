// One sentence per identity event, for timelines, diffs and printed exports
// (docs/mirrors.md, "History"). Never contains credential data: sources and mirrors are
// named by their Secret and the first 12 hex characters of the source hash.
//
// Thread-safety: pure function.
#pragma once

#include <string>

#include "credledger/v1/events.pb.h"

namespace credledger::projections {

// What an identity event says ("mirror captf-creds-aws written in team-a (created, source
// 3f2a9c01d4e5, 1 owner reference)"); REQUIRES: `event` is one of the identity stream's
// kinds (IdentityCreated through MirrorFailed, and BoundObjectGone, in events.proto).
std::string SummarizeIdentityEvent(const v1::Event& event);

}  // namespace credledger::projections
