#include "cli/framework/yaml_fields.h"

#include "absl/strings/str_cat.h"

namespace credledger::cli {

absl::Status YamlInvalid(absl::string_view path, absl::string_view rule) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", rule));
}

std::string YamlChild(absl::string_view path, absl::string_view key) {
  return path.empty() ? std::string(key) : absl::StrCat(path, ".", key);
}

namespace {

// Refuses a key of mapping `node` given twice and, when `allowed` is set, a key not in it;
// the first offending key in document order is named.
absl::Status CheckMappingKeys(const YAML::Node& node, absl::string_view path,
                              const std::set<std::string>* allowed) {
  std::set<std::string> seen;
  for (const auto& item : node) {
    const std::string key = item.first.as<std::string>();
    if (allowed != nullptr && !allowed->contains(key)) {
      return YamlInvalid(YamlChild(path, key), "unknown key");
    }
    if (!seen.insert(key).second) {
      return YamlInvalid(YamlChild(path, key), "duplicate key; each key may appear once");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status YamlCheckKeys(const YAML::Node& node, absl::string_view path,
                           const std::set<std::string>& allowed) {
  if (!node.IsMap()) return YamlInvalid(path.empty() ? "document" : path, "must be a mapping");
  return CheckMappingKeys(node, path, &allowed);
}

absl::Status YamlCheckUniqueKeys(const YAML::Node& node, absl::string_view path) {
  return CheckMappingKeys(node, path, nullptr);
}

absl::StatusOr<std::string> YamlString(const YAML::Node& node, absl::string_view path) {
  if (!node.IsScalar()) return YamlInvalid(path, "must be a string");
  return node.Scalar();
}

absl::StatusOr<bool> YamlBool(const YAML::Node& node, absl::string_view path) {
  if (node.IsScalar() && node.Tag() == "?") {
    if (node.Scalar() == "true") return true;
    if (node.Scalar() == "false") return false;
  }
  return YamlInvalid(path, "must be true or false (unquoted)");
}

bool YamlPresent(const YAML::Node& node) { return node.IsDefined() && !node.IsNull(); }

}  // namespace credledger::cli
