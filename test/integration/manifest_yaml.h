// Kubernetes manifests in tests: the documents of a multi-document YAML file (as `kubectl
// apply -f` reads it) as JSON objects, so a test can apply the project's own manifests
// (docs/manifests/) to the test API server or check their fields.
//
// Scalars follow the YAML 1.2 core schema as far as manifests need it: plain `true`/`false`
// are booleans, plain `null`, `~` and empty values are null, plain decimal integers are
// numbers; every quoted scalar and everything else is a string. Empty documents (a trailing
// `---`) are skipped.
//
// Thread-safety: pure functions.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace credledger::testing {

// The non-empty documents of the file at `path`, in order.
// Errors: kNotFound when the file cannot be read; kInvalidArgument naming the file and the
// rule when the YAML does not parse or a document is not a mapping with string apiVersion,
// kind and metadata.name.
absl::StatusOr<std::vector<nlohmann::json>> LoadManifest(const std::filesystem::path& path);

// The objects of `objects` whose kind is `kind`, in order.
std::vector<nlohmann::json> OfKind(const std::vector<nlohmann::json>& objects,
                                   const std::string& kind);

}  // namespace credledger::testing
