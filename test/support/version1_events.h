// Identity events as a log written with plain source hashes holds them (schema version 1 of
// SourceSecretObserved and MirrorWritten; docs/mirrors.md, "Logs with plain source hashes"),
// for tests of how such logs are read and carried on.
#pragma once

#include <string>
#include <utility>

#include "credledger/v1/events.pb.h"

namespace credledger::testing {

// `event` as version 1 carried it: a SourceSecretObserved of a found source or a MirrorWritten
// names its data by `plain_hash` in source_hash, without a source_fingerprint. Other events
// are returned as they are.
inline v1::Event AsVersion1(v1::Event event, const std::string& plain_hash) {
  if (event.has_source_secret_observed() && event.source_secret_observed().found()) {
    v1::SourceSecretObserved* observed = event.mutable_source_secret_observed();
    observed->clear_source_fingerprint();
    observed->set_source_hash(plain_hash);
  }
  if (event.has_mirror_written()) {
    v1::MirrorWritten* written = event.mutable_mirror_written();
    written->clear_source_fingerprint();
    written->set_source_hash(plain_hash);
  }
  return event;
}

}  // namespace credledger::testing
