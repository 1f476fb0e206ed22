// TestSnapshotGuard: a projections::SnapshotGuard that seals with a fresh Ed25519 key and
// trusts only that key, as `credledger serve --signing-key` wires it (docs/audit.md,
// "Snapshots"), for tests of projectors that write and load snapshots. For tests only.
#pragma once

#include <memory>
#include <utility>

#include "absl/status/statusor.h"
#include "audit/signing_key.h"
#include "audit/snapshot_seal.h"
#include "projections/snapshot_guard.h"

namespace credledger::testing {

class TestSnapshotGuard {
 public:
  // A guard over a new key. Errors: audit::SigningKey::Generate's.
  static absl::StatusOr<std::unique_ptr<TestSnapshotGuard>> Create() {
    absl::StatusOr<audit::SigningKey> key = audit::SigningKey::Generate();
    if (!key.ok()) return key.status();
    return std::unique_ptr<TestSnapshotGuard>(new TestSnapshotGuard(*std::move(key)));
  }
  TestSnapshotGuard(const TestSnapshotGuard&) = delete;
  TestSnapshotGuard& operator=(const TestSnapshotGuard&) = delete;

  projections::SnapshotGuard* get() { return &guard_; }
  const audit::SigningKey& key() const { return key_; }
  const audit::KeySnapshotSeal& seal() const { return seal_; }

 private:
  explicit TestSnapshotGuard(audit::SigningKey key)
      : key_(std::move(key)), seal_(key_, audit::KeyRing(key_.public_key())), guard_(&seal_) {}

  const audit::SigningKey key_;
  const audit::KeySnapshotSeal seal_;
  projections::SnapshotGuard guard_;
};

}  // namespace credledger::testing
