// Type-safe accessors for untrusted JSON (nlohmann's value() throws when a present field
// has another type; these never throw).
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "nlohmann/json.hpp"

namespace credledger::kubeapi {

// `object[key]` when `object` is an object holding a string there, else "".
std::string StringField(const nlohmann::json& object, const std::string& key);

// `object[key]` when present, else a shared null value. Never throws.
const nlohmann::json& Field(const nlohmann::json& object, const std::string& key);

// Shorthand for Field(object, "metadata").
const nlohmann::json& Metadata(const nlohmann::json& object);

// The string at `object.metadata.<key>`, else "".
std::string MetadataString(const nlohmann::json& object, const std::string& key);

}  // namespace credledger::kubeapi
