#include "test/kubeapi/json_util.h"

namespace credledger::kubeapi {

const nlohmann::json& Field(const nlohmann::json& object, const std::string& key) {
  static const nlohmann::json* const kNull = new nlohmann::json();
  if (!object.is_object()) return *kNull;
  auto it = object.find(key);
  return it == object.end() ? *kNull : *it;
}

std::string StringField(const nlohmann::json& object, const std::string& key) {
  const nlohmann::json& v = Field(object, key);
  return v.is_string() ? v.get<std::string>() : "";
}

const nlohmann::json& Metadata(const nlohmann::json& object) {
  return Field(object, "metadata");
}

std::string MetadataString(const nlohmann::json& object, const std::string& key) {
  return StringField(Metadata(object), key);
}

}  // namespace credledger::kubeapi
