#include "audit/signed_records.h"

#include "absl/strings/str_cat.h"
#include "common/quote_cut.h"
#include "common/sha256.h"
#include "common/status_macros.h"
#include "store/log_hash.h"

namespace credledger::audit {
namespace {

using store::AppendLengthPrefixed;
using store::AppendLengthPrefixedInt;

constexpr size_t kChainHashBytes = 32;
// Longest part of a key id read from a signed record quoted in a message (a real one has 16
// characters).
constexpr size_t kShownKeyIdBytes = 64;

std::string FilterSigningBytes(const v1::ExportFilter& filter) {
  std::string out;
  AppendLengthPrefixedInt(&out, filter.after_seq());
  AppendLengthPrefixedInt(&out, filter.until_seq());
  AppendLengthPrefixedInt(&out, filter.from_time_us());
  AppendLengthPrefixedInt(&out, filter.to_time_us());
  AppendLengthPrefixed(&out, filter.stream());
  AppendLengthPrefixed(&out, filter.stream_prefix());
  AppendLengthPrefixedInt(&out, filter.types_size());
  for (const std::string& type : filter.types()) AppendLengthPrefixed(&out, type);
  return out;
}

// The checkpoint as embedded in a trailer: empty when unset, else its signing bytes and
// LP(signature).
std::string EmbeddedCheckpoint(const v1::ExportTrailer& trailer) {
  if (!trailer.has_checkpoint()) return "";
  std::string out = CheckpointSigningBytes(trailer.checkpoint());
  AppendLengthPrefixed(&out, trailer.checkpoint().signature());
  return out;
}

// A key id read from a signed record, quoted for a message whatever bytes it holds.
std::string Quoted(absl::string_view key_id) {
  return common::QuoteCut(key_id, kShownKeyIdBytes);
}

}  // namespace

std::string CheckpointSigningBytes(const v1::Checkpoint& checkpoint) {
  std::string out;
  AppendLengthPrefixed(&out, kCheckpointTag);
  AppendLengthPrefixedInt(&out, checkpoint.seq());
  AppendLengthPrefixed(&out, checkpoint.chain_hash());
  AppendLengthPrefixedInt(&out, checkpoint.signed_at_us());
  AppendLengthPrefixed(&out, checkpoint.key_id());
  return out;
}

absl::StatusOr<v1::Checkpoint> SignCheckpoint(const SigningKey& key, int64_t seq,
                                              absl::string_view chain_hash,
                                              int64_t signed_at_us) {
  if (seq < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("checkpoint: seq must be at least 1, got ", seq));
  }
  if (chain_hash.size() != kChainHashBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "checkpoint at seq ", seq, ": chain_hash must be 32 bytes, got ", chain_hash.size()));
  }
  v1::Checkpoint checkpoint;
  checkpoint.set_seq(seq);
  checkpoint.set_chain_hash(std::string(chain_hash));
  checkpoint.set_signed_at_us(signed_at_us);
  checkpoint.set_key_id(key.key_id());
  absl::StatusOr<std::string> signature = key.Sign(CheckpointSigningBytes(checkpoint));
  if (!signature.ok()) return signature.status();
  checkpoint.set_signature(*std::move(signature));
  return checkpoint;
}

namespace {

// "not by the given public key Y", or "not by any of the given public keys (Y, Z)".
std::string NotByAnyOf(const KeyRing& keys) {
  if (keys.size() == 1) return absl::StrCat("not by the given public key ", keys.KeyIds());
  return absl::StrCat("not by any of the given public keys (", keys.KeyIds(), ")");
}

}  // namespace

absl::Status VerifySignedBy(const KeyRing& keys, absl::string_view what, absl::string_view key_id,
                            absl::string_view signing_bytes, absl::string_view signature) {
  const PublicKey* key = keys.Find(key_id);
  if (key == nullptr) {
    return absl::PermissionDeniedError(
        absl::StrCat(what, " is signed by key ", Quoted(key_id), ", ", NotByAnyOf(keys)));
  }
  if (!key->Verify(signing_bytes, signature)) {
    return absl::PermissionDeniedError(absl::StrCat(what, ": bad signature"));
  }
  return absl::OkStatus();
}

absl::Status VerifyCheckpoint(const KeyRing& keys, const v1::Checkpoint& checkpoint) {
  return VerifySignedBy(keys, absl::StrCat("checkpoint at seq ", checkpoint.seq()),
                        checkpoint.key_id(), CheckpointSigningBytes(checkpoint),
                        checkpoint.signature());
}

uint32_t TrailerVersion(const v1::ExportTrailer& trailer) {
  return trailer.version() == 0 ? 1 : trailer.version();
}

absl::Status CheckTrailerVersion(const v1::ExportTrailer& trailer) {
  const uint32_t version = TrailerVersion(trailer);
  if (version > kTrailerVersion) {
    return absl::UnimplementedError(
        absl::StrCat("export trailer version ", version, " is not known here (versions 1 and ",
                     kTrailerVersion, " are); verify it with a credledger release that knows it"));
  }
  if (version == 1 && !trailer.lines_hash().empty()) {
    return absl::InvalidArgumentError(
        "export trailer version 1: lines_hash is not part of a version 1 trailer");
  }
  if (version >= 2 && trailer.lines_hash().size() != kChainHashBytes) {
    return absl::InvalidArgumentError(absl::StrCat("export trailer version ", version,
                                                   ": lines_hash must be 32 bytes, got ",
                                                   trailer.lines_hash().size()));
  }
  return absl::OkStatus();
}

std::string TrailerSigningBytes(const v1::ExportTrailer& trailer) {
  const bool v1 = TrailerVersion(trailer) == 1;
  std::string out;
  AppendLengthPrefixed(&out, v1 ? kTrailerTag : kTrailerTagV2);
  AppendLengthPrefixed(&out, FilterSigningBytes(trailer.filter()));
  AppendLengthPrefixedInt(&out, trailer.first_seq());
  AppendLengthPrefixedInt(&out, trailer.last_seq());
  AppendLengthPrefixedInt(&out, trailer.event_count());
  AppendLengthPrefixedInt(&out, trailer.head_seq());
  AppendLengthPrefixed(&out, trailer.head_chain_hash());
  AppendLengthPrefixedInt(&out, trailer.streams_size());
  for (const v1::StreamHead& head : trailer.streams()) {
    AppendLengthPrefixed(&out, head.stream());
    AppendLengthPrefixedInt(&out, head.stream_version());
    AppendLengthPrefixed(&out, head.stream_hash());
  }
  AppendLengthPrefixedInt(&out, trailer.exported_at_us());
  AppendLengthPrefixed(&out, EmbeddedCheckpoint(trailer));
  if (!v1) AppendLengthPrefixed(&out, trailer.lines_hash());
  AppendLengthPrefixed(&out, trailer.key_id());
  return out;
}

absl::Status SignTrailer(const SigningKey& key, v1::ExportTrailer& trailer) {
  RETURN_IF_ERROR(CheckTrailerVersion(trailer));
  trailer.set_key_id(key.key_id());
  absl::StatusOr<std::string> signature = key.Sign(TrailerSigningBytes(trailer));
  if (!signature.ok()) return signature.status();
  trailer.set_signature(*std::move(signature));
  return absl::OkStatus();
}

absl::Status VerifyTrailer(const KeyRing& keys, const v1::ExportTrailer& trailer) {
  RETURN_IF_ERROR(CheckTrailerVersion(trailer));
  if (trailer.signature().empty()) {
    return absl::PermissionDeniedError("the export trailer is not signed");
  }
  const PublicKey* key = keys.Find(trailer.key_id());
  if (key == nullptr) {
    return absl::PermissionDeniedError(absl::StrCat(
        "the export trailer is signed by key ", Quoted(trailer.key_id()), ", ",
        NotByAnyOf(keys)));
  }
  if (!key->Verify(TrailerSigningBytes(trailer), trailer.signature())) {
    return absl::PermissionDeniedError("the export trailer: bad signature");
  }
  if (trailer.has_checkpoint()) return VerifyCheckpoint(keys, trailer.checkpoint());
  return absl::OkStatus();
}

void LinesHash::Add(const store::RecordedEvent& event) {
  line_.clear();
  AppendLengthPrefixedInt(&line_, event.seq);
  AppendLengthPrefixed(&line_, event.digest);
  AppendLengthPrefixed(&line_, event.chain_hash);
  AppendLengthPrefixed(&line_, event.stream_hash);
  hasher_.Update(value_);
  hasher_.Update(line_);
  value_ = std::string(common::AsBytes(hasher_.Finish()));
}

}  // namespace credledger::audit
