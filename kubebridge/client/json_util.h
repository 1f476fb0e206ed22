// Exception-free helpers around nlohmann::json for API objects: nlohmann::json's parse()
// throws unless called with allow_exceptions=false, and dump() throws on invalid UTF-8, so
// untrusted JSON goes through these instead.
//
// Thread-safety: pure functions.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace credledger::kubebridge {

// The string at `path` (object keys from the root), e.g. {"metadata", "resourceVersion"};
// "" when a key is missing or a value on the way is not an object / not a string.
std::string StringAt(const nlohmann::json& value, std::initializer_list<absl::string_view> path);

// Parses `text` (a response body of request `what`).
// Errors: kInternal "<what>: response is not valid JSON" (the body is not quoted: it may
// hold secret data).
absl::StatusOr<nlohmann::json> ParseJson(absl::string_view text, absl::string_view what);

// Serializes `value` compactly.
// Errors: kInvalidArgument when a string in it is not valid UTF-8.
absl::StatusOr<std::string> SerializeJson(const nlohmann::json& value);

}  // namespace credledger::kubebridge
