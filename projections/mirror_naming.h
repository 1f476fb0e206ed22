// Names, hashes and fingerprints of credential mirrors (docs/mirrors.md, "The mirror",
// "Source hash" and "Source fingerprint").
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "common/fingerprint_key.h"

namespace credledger::projections {

inline constexpr char kMirrorNamePrefix[] = "captf-creds-";
// Longest Secret name Kubernetes accepts (a DNS-1123 subdomain).
inline constexpr size_t kMaxSecretNameBytes = 253;

// The mirror Secret's name for identity `identity`: "captf-creds-<identity>", or, when that
// would pass 253 characters, "captf-creds-" followed by the first 16 lowercase hex
// characters of SHA-256 over the identity name.
std::string MirrorSecretName(absl::string_view identity);

// The source hash of a Secret's data: lowercase hex SHA-256 over, for each key in byte
// order, the key's length as an 8-byte big-endian unsigned integer, the key's bytes, the
// value's length the same way and the value's raw (decoded) bytes. Empty data hashes to
// SHA-256 of nothing. `data` holds (key, raw value) pairs in any order; keys are unique.
// It is the mirror Secret's captf.io/source-hash annotation; events record SourceFingerprint
// instead.
std::string SourceHash(std::vector<std::pair<std::string, std::string>> data);

// The source fingerprint of a Secret's data: `key`'s fingerprint ("hmac-sha256:<key id>:<64
// hex>", common/fingerprint_key.h) over the bytes SourceHash hashes. What the log, the API
// and every output record of a source's data: without the key, a guessed value cannot be
// checked against it.
std::string SourceFingerprint(const common::FingerprintKey& key,
                              std::vector<std::pair<std::string, std::string>> data);

// What identifies the source data a record names, to compare and to show: its
// source_fingerprint, or, in a record of a version 1 event, its plain source_hash; empty when
// it names none (a source not found). A fingerprint never equals a plain hash, and
// fingerprints under different keys never equal each other, so such records count as
// different data (docs/mirrors.md, "Logs with plain source hashes"). `Record` is any message
// with both fields: SourceSecretObserved, MirrorWritten, SourceObservation, MirrorRecord,
// MirrorView.
template <typename Record>
const std::string& SourceDigestOf(const Record& record) {
  return record.source_fingerprint().empty() ? record.source_hash() : record.source_fingerprint();
}

// How messages and summaries show a source digest (SourceDigestOf): the first 12 hex
// characters of a fingerprint's MAC, or of a plain hash ("none" when empty). Never more, so
// that no message carries a whole digest.
std::string ShortSourceDigest(absl::string_view digest);

// A source digest in words for `identity get`: "fingerprint <short> (key <key id>)", "hash
// <short>" for a plain hash, or "none".
std::string SourceDigestWords(absl::string_view digest);

}  // namespace credledger::projections
