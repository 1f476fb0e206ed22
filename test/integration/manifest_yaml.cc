#include "test/integration/manifest_yaml.h"

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace credledger::testing {
namespace {

nlohmann::json ScalarToJson(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() != "?") return text;  // quoted ("!") or explicitly tagged: a string
  if (text == "true") return true;
  if (text == "false") return false;
  if (text.empty() || text == "null" || text == "~") return nullptr;
  int64_t number = 0;
  const bool decimal = text.find_first_not_of("-0123456789") == std::string::npos;
  if (decimal && absl::SimpleAtoi(text, &number)) return number;
  return text;
}

nlohmann::json ToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return nullptr;
    case YAML::NodeType::Scalar:
      return ScalarToJson(node);
    case YAML::NodeType::Sequence: {
      nlohmann::json out = nlohmann::json::array();
      for (const YAML::Node& item : node) out.push_back(ToJson(item));
      return out;
    }
    case YAML::NodeType::Map: {
      nlohmann::json out = nlohmann::json::object();
      for (const auto& entry : node) out[entry.first.as<std::string>()] = ToJson(entry.second);
      return out;
    }
  }
  return nullptr;
}

bool IsString(const nlohmann::json& object, const nlohmann::json::json_pointer& pointer) {
  return object.contains(pointer) && object.at(pointer).is_string();
}

}  // namespace

absl::StatusOr<std::vector<nlohmann::json>> LoadManifest(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(path.string(), ": cannot read the manifest"));
  std::stringstream text;
  text << in.rdbuf();
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text.str());
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(path.string(), ": not YAML: ", e.what()));
  }
  std::vector<nlohmann::json> objects;
  for (const YAML::Node& document : documents) {
    if (document.IsNull()) continue;
    nlohmann::json object = ToJson(document);
    if (!object.is_object() || !IsString(object, "/apiVersion"_json_pointer) ||
        !IsString(object, "/kind"_json_pointer) ||
        !IsString(object, "/metadata/name"_json_pointer)) {
      return absl::InvalidArgumentError(absl::StrCat(
          path.string(), ": document ", objects.size() + 1,
          " is not a Kubernetes object (a mapping with apiVersion, kind and metadata.name)"));
    }
    objects.push_back(std::move(object));
  }
  return objects;
}

std::vector<nlohmann::json> OfKind(const std::vector<nlohmann::json>& objects,
                                   const std::string& kind) {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& object : objects) {
    if (object.value("kind", "") == kind) out.push_back(object);
  }
  return out;
}

}  // namespace credledger::testing
