// What an event says, for people (docs/forensics.md, "What happened to this Target, and who
// did it?" and "What changed between 10:00 and 10:05?"): one sentence without secret material,
// and the subject fields of its timeline entry. TimelineBuilder and StateDiff describe events
// with it. Times are RFC 3339 UTC.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"

namespace credledger::projections {

// Sets the summary and the subject fields (target_uid, Secret and its tag, attempt) of
// `entry` from `event`; the other fields of `entry` are left as they are. A Secret's tag is
// the credentialTag of its uid by definition (docs/credentials.md, "Credential tag and
// connection hash"), so every event about one Secret carries it. An identity event's summary
// is SummarizeIdentityEvent's (identity_summary.h).
void DescribeEvent(const v1::Event& event, v1::TimelineEntry& entry);

// What `event` says, as one sentence without secret material: the summary of its timeline
// entry ("credential issued: Secret solar-agent-edge-1-3, tag ab12cd34ef, expires
// 2026-12-02T10:00:00Z"); StateDiff reuses it. Times are RFC 3339 UTC.
std::string SummarizeEvent(const v1::Event& event);

}  // namespace credledger::projections
