#include "audit/snapshot_seal.h"

#include "absl/strings/str_cat.h"
#include "audit/signed_records.h"
#include "audit/verification.h"
#include "common/quote_cut.h"
#include "common/sha256.h"
#include "common/status_macros.h"
#include "store/log_hash.h"

namespace credledger::audit {
namespace {

// Longest part of a projection name read from a snapshot row quoted in a message (the
// service's names have at most 11 characters).
constexpr size_t kShownProjectionBytes = 64;

// `snapshot "<projection>" at seq N`, how every message about a snapshot starts.
std::string Named(const store::Snapshot& snapshot) {
  return absl::StrCat("snapshot ", common::QuoteCut(snapshot.projection, kShownProjectionBytes),
                      " at seq ", snapshot.seq);
}

}  // namespace

std::string SnapshotSigningBytes(const store::Snapshot& snapshot) {
  std::string out;
  store::AppendLengthPrefixed(&out, kSnapshotTag);
  store::AppendLengthPrefixed(&out, snapshot.projection);
  store::AppendLengthPrefixedInt(&out, snapshot.seq);
  store::AppendLengthPrefixedInt(&out, snapshot.schema_version);
  store::AppendLengthPrefixed(&out, snapshot.chain_hash);
  store::AppendLengthPrefixed(&out, snapshot.state_sha256);
  store::AppendLengthPrefixed(&out, snapshot.key_id);
  return out;
}

absl::Status SealSnapshot(const SigningKey& key, absl::string_view chain_hash,
                          store::Snapshot& snapshot) {
  if (snapshot.seq < 1) {
    return absl::InvalidArgumentError(absl::StrCat(Named(snapshot), ": seq must be at least 1"));
  }
  if (chain_hash.size() != store::ZeroHash().size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(Named(snapshot), ": chain_hash must be 32 bytes, got ", chain_hash.size()));
  }
  snapshot.chain_hash = std::string(chain_hash);
  snapshot.state_sha256 = std::string(common::AsBytes(common::Sha256Of(snapshot.state)));
  snapshot.key_id = key.key_id();
  absl::StatusOr<std::string> signature = key.Sign(SnapshotSigningBytes(snapshot));
  if (!signature.ok()) return signature.status();
  snapshot.signature = *std::move(signature);
  return absl::OkStatus();
}

absl::Status CheckSnapshot(const KeyRing& keys, const store::Snapshot& snapshot,
                           absl::string_view chain_hash) {
  if (snapshot.key_id.empty() || snapshot.signature.empty()) {
    return absl::PermissionDeniedError(absl::StrCat(Named(snapshot), " is not signed"));
  }
  RETURN_IF_ERROR(VerifySignedBy(keys, Named(snapshot), snapshot.key_id,
                                 SnapshotSigningBytes(snapshot), snapshot.signature));
  if (chain_hash.empty()) {
    return absl::PermissionDeniedError(
        absl::StrCat(Named(snapshot), " names an event the log does not hold"));
  }
  if (snapshot.chain_hash != chain_hash) {
    return absl::PermissionDeniedError(
        absl::StrCat(Named(snapshot), " states chain hash ", HashPrefix(snapshot.chain_hash),
                     ", the event at seq ", snapshot.seq, " has ", HashPrefix(chain_hash)));
  }
  const common::Sha256Bytes state_sha256 = common::Sha256Of(snapshot.state);
  if (common::AsBytes(state_sha256) != snapshot.state_sha256) {
    return absl::PermissionDeniedError(absl::StrCat(
        Named(snapshot), ": its state hashes to ", HashPrefix(common::AsBytes(state_sha256)),
        ", its seal states ", HashPrefix(snapshot.state_sha256)));
  }
  return absl::OkStatus();
}

absl::Status KeySnapshotSeal::Seal(absl::string_view chain_hash, store::Snapshot& snapshot) const {
  return SealSnapshot(*key_, chain_hash, snapshot);
}

absl::Status KeySnapshotSeal::Check(const store::Snapshot& snapshot,
                                    absl::string_view chain_hash) const {
  return CheckSnapshot(trusted_, snapshot, chain_hash);
}

}  // namespace credledger::audit
