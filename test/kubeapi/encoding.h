// Base64 encodings used by the test API server: the standard alphabet with padding (Secret
// `data` values, kubeconfig `-data` fields) and the URL-safe alphabet without padding (JWT
// segments, RFC 7515 section 2).
//
// Thread-safety: pure functions, safe from any thread.
#pragma once

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace credledger::kubeapi {

// Standard base64 (RFC 4648 section 4) of `bytes`, padded with '='.
std::string Base64Encode(absl::string_view bytes);

// Decodes standard padded base64. Returns std::nullopt when `text` has a character outside
// the alphabet, a length that is not a multiple of 4, or misplaced padding (the strictness
// of Go's encoding/base64.StdEncoding, which the Kubernetes API server uses for Secret data).
std::optional<std::string> Base64Decode(absl::string_view text);

// URL-safe base64 (RFC 4648 section 5) of `bytes` without padding.
std::string Base64UrlEncode(absl::string_view bytes);

// Decodes unpadded URL-safe base64. Returns std::nullopt on a character outside the
// alphabet, a '=' anywhere, or an impossible length (len % 4 == 1).
std::optional<std::string> Base64UrlDecode(absl::string_view text);

}  // namespace credledger::kubeapi
