// PlaceholderSnapshot: a snapshot the store accepts without a signing key, for tests of the
// store's snapshot rows. The store checks only a snapshot's position (its chain_hash against
// the event at its seq, and that a key id and signature are there); the seal itself is
// checked by audit/snapshot_seal.h (docs/audit.md, "Snapshots"). For tests only.
#pragma once

#include <cstdint>
#include <string>

#include "store/event_store.h"

namespace credledger::testing {

// A snapshot of `projection` at `seq` holding `state`, naming `chain_hash`, with placeholder
// seal fields of the right shape (a 32-byte state hash, a key id, a signature).
inline store::Snapshot PlaceholderSnapshot(const std::string& projection, int64_t seq,
                                           const std::string& state,
                                           const std::string& chain_hash) {
  return store::Snapshot{.projection = projection,
                         .seq = seq,
                         .schema_version = 1,
                         .state = state,
                         .chain_hash = chain_hash,
                         .state_sha256 = std::string(32, 's'),
                         .key_id = "test-key",
                         .signature = "test-signature"};
}

}  // namespace credledger::testing
