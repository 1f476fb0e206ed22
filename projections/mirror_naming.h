// Names and hashes of credential mirrors (docs/mirrors.md, "The mirror" and "Source
// hash").
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

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
std::string SourceHash(std::vector<std::pair<std::string, std::string>> data);

// How messages and summaries show a source hash: its first 12 hex characters ("none" when
// empty). Never more, so that no message carries a full digest of credential data.
std::string ShortSourceHash(absl::string_view hash);

}  // namespace credledger::projections
