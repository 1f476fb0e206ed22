// Sealed projection snapshots (docs/audit.md, "Snapshots"): the bytes a snapshot's signature
// covers, sealing a snapshot with the service's Ed25519 key, checking a seal against the log,
// and KeySnapshotSeal, the store::SnapshotSeal the service hands its projectors.
//
// Signing bytes, in the log's encodings (docs/log-format.md; LP(x) is x prefixed with its
// 8-byte big-endian length, INT(n) an 8-byte big-endian integer):
//
//   LP("credledger-snapshot-v1") || LP(projection) || LP(INT(seq)) || LP(INT(schema_version))
//   || LP(chain_hash) || LP(state_sha256) || LP(key_id)
//
// The state is covered through its SHA-256, so that checking a signature needs no second pass
// over a large state.
//
// Thread-safety: the functions are thread-safe; KeySnapshotSeal is immutable.
#pragma once

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "audit/signing_key.h"
#include "store/event_store.h"
#include "store/snapshot_seal.h"

namespace credledger::audit {

inline constexpr char kSnapshotTag[] = "credledger-snapshot-v1";

// The bytes a snapshot's signature covers (above; the state only through state_sha256).
std::string SnapshotSigningBytes(const store::Snapshot& snapshot);

// Sets the seal of `snapshot` (projection, seq, schema_version and state set) for the event
// at its seq with `chain_hash`: chain_hash, state_sha256, key_id (`key`'s) and signature.
// Errors: kInvalidArgument when seq < 1 or chain_hash is not 32 bytes; kInternal when
// signing fails.
absl::Status SealSnapshot(const SigningKey& key, absl::string_view chain_hash,
                          store::Snapshot& snapshot);

// Checks the seal of `snapshot` against `chain_hash`, the chain_hash of the log's event at
// its seq (empty when the log holds none), and the keys of `keys`: signature first, then the
// chain hash, then the state's SHA-256.
// Errors: kPermissionDenied, each message starting `snapshot "<projection>" at seq N`:
// "... is not signed", VerifySignedBy's ("... is signed by key X, not by ...", "...: bad
// signature"), "... names an event the log does not hold", "... states chain hash H1..., the
// event at seq N has H2...", "...: its state hashes to H1..., its seal states H2...".
absl::Status CheckSnapshot(const KeyRing& keys, const store::Snapshot& snapshot,
                           absl::string_view chain_hash);

// The service's seal: signs with its key and trusts the keys of a ring (its own key, and
// the keys it signed with before a rotation).
class KeySnapshotSeal final : public store::SnapshotSeal {
 public:
  // `key` (not owned; must outlive the seal) signs; `trusted` checks.
  KeySnapshotSeal(const SigningKey& key, KeyRing trusted)
      : key_(&key), trusted_(std::move(trusted)) {}

  // SealSnapshot with the key. Errors: SealSnapshot's.
  absl::Status Seal(absl::string_view chain_hash, store::Snapshot& snapshot) const override;
  // CheckSnapshot with the trusted keys. Errors: CheckSnapshot's.
  absl::Status Check(const store::Snapshot& snapshot, absl::string_view chain_hash) const override;

 private:
  const SigningKey* const key_;
  const KeyRing trusted_;
};

}  // namespace credledger::audit
