// The signed records of the audit trail (docs/audit.md, "Checkpoints" and "Trailer"): the
// exact bytes that are signed, and signing and verifying them.
//
// Signing bytes use the log's encodings (docs/log-format.md): LP(x) is x prefixed with its
// 8-byte big-endian length, INT(n) an 8-byte big-endian integer.
//
//   checkpoint = LP("credledger-checkpoint-v1") || LP(INT(seq)) || LP(chain_hash)
//                || LP(INT(signed_at_us)) || LP(key_id)
//   trailer v1 = LP("credledger-export-trailer-v1") || body || LP(key_id)
//   trailer v2 = LP("credledger-export-trailer-v2") || body || LP(lines_hash) || LP(key_id)
//   body       = LP(filter) || LP(INT(first_seq))
//                || LP(INT(last_seq)) || LP(INT(event_count)) || LP(INT(head_seq))
//                || LP(head_chain_hash) || LP(INT(number of streams))
//                || for each stream in order: LP(stream) || LP(INT(stream_version))
//                                             || LP(stream_hash)
//                || LP(INT(exported_at_us)) || LP(checkpoint)
//   filter     = LP(INT(after_seq)) || LP(INT(until_seq)) || LP(INT(from_time_us))
//                || LP(INT(to_time_us)) || LP(stream) || LP(stream_prefix)
//                || LP(INT(number of types)) || LP(type) for each type in order
//   checkpoint inside the trailer: the empty string when unset, else the checkpoint's signing
//                bytes followed by LP(signature)
//   lines_hash = L(n) over the n exported events in export order: L(0) = 32 zero bytes,
//                L(i) = SHA-256(L(i-1) || LP(INT(seq)) || LP(digest) || LP(chain_hash)
//                               || LP(stream_hash))
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "audit/signing_key.h"
#include "common/sha256.h"
#include "credledger/v1/audit.pb.h"
#include "store/event_store.h"

namespace credledger::audit {

inline constexpr char kCheckpointTag[] = "credledger-checkpoint-v1";
inline constexpr char kTrailerTag[] = "credledger-export-trailer-v1";
inline constexpr char kTrailerTagV2[] = "credledger-export-trailer-v2";
// The trailer version the service writes; the newest one VerifyTrailer knows.
inline constexpr uint32_t kTrailerVersion = 2;

// The bytes a checkpoint's signature covers (every field but `signature`).
std::string CheckpointSigningBytes(const v1::Checkpoint& checkpoint);
// A checkpoint of the chain at `seq` (chain_hash: 32 bytes), signed at `signed_at_us` (unix
// microseconds) with `key`. Errors: kInvalidArgument when seq < 1 or chain_hash is not 32
// bytes; kInternal when signing fails.
absl::StatusOr<v1::Checkpoint> SignCheckpoint(const SigningKey& key, int64_t seq,
                                              absl::string_view chain_hash,
                                              int64_t signed_at_us);
// Checks `checkpoint` against the key of `keys` its key id names. Errors: kPermissionDenied
// "checkpoint at seq N is signed by key X, not by the given public key Y" (or "not by any of
// the given public keys (Y, Z)") when no key has its id, or "checkpoint at seq N: bad
// signature" when the signature does not verify.
absl::Status VerifyCheckpoint(const KeyRing& keys, const v1::Checkpoint& checkpoint);

// Checks `signature` over `signing_bytes` against the key of `keys` that `key_id` names;
// `what` names the signed record in messages ("checkpoint at seq 7").
// Errors: kPermissionDenied "<what> is signed by key X, not by the given public key Y" (or
// "not by any of the given public keys (Y, Z)") when no key has the id, or "<what>: bad
// signature" when the signature does not verify.
absl::Status VerifySignedBy(const KeyRing& keys, absl::string_view what, absl::string_view key_id,
                            absl::string_view signing_bytes, absl::string_view signature);

// The version of `trailer`: its `version` field, or 1 when the field is unset.
uint32_t TrailerVersion(const v1::ExportTrailer& trailer);
// Whether this build knows the trailer's version and its lines_hash has the version's
// shape. Errors: kUnimplemented "export trailer version N is not known here (versions 1 and
// 2 are); verify it with a credledger release that knows it" for a version above
// kTrailerVersion; kInvalidArgument when a version 2 lines_hash is not 32 bytes or a
// version 1 trailer has one.
absl::Status CheckTrailerVersion(const v1::ExportTrailer& trailer);
// The bytes a trailer's signature covers (every field but `signature`), as its version
// lays them out. REQUIRES: CheckTrailerVersion(trailer) is OK.
std::string TrailerSigningBytes(const v1::ExportTrailer& trailer);
// Sets `trailer.key_id` to the key's id and signs. Errors: CheckTrailerVersion's; kInternal
// when signing fails.
absl::Status SignTrailer(const SigningKey& key, v1::ExportTrailer& trailer);
// Checks the trailer's version (CheckTrailerVersion, whose errors it returns), its signature
// against the key of `keys` its key id names, and its checkpoint's when set (which may name
// another key of the ring: a checkpoint signed before a key rotation). Errors:
// kPermissionDenied naming what failed ("the export trailer is not signed", "the export
// trailer is signed by key X, not by ...", "the export trailer: bad signature", or
// VerifyCheckpoint's).
absl::Status VerifyTrailer(const KeyRing& keys, const v1::ExportTrailer& trailer);

// The running lines_hash of an export (above), fed the exported events in export order.
// Thread-safety: not thread-safe.
class LinesHash {
 public:
  // Adds the next exported event: its seq and its digest, chain_hash and stream_hash as they
  // stand (raw bytes), not recomputed.
  void Add(const store::RecordedEvent& event);
  // L(n) after the n events added: 32 bytes, 32 zero bytes before the first.
  const std::string& value() const { return value_; }

 private:
  common::Sha256 hasher_;
  std::string value_ = std::string(32, '\0');
  std::string line_;  // the bytes hashed for one event, reused
};

}  // namespace credledger::audit
