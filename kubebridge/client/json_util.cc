#include "kubebridge/client/json_util.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace credledger::kubebridge {

std::string StringAt(const nlohmann::json& value, std::initializer_list<absl::string_view> path) {
  const nlohmann::json* current = &value;
  for (absl::string_view key : path) {
    if (!current->is_object()) return std::string();
    auto it = current->find(std::string(key));
    if (it == current->end()) return std::string();
    current = &*it;
  }
  return current->is_string() ? current->get<std::string>() : std::string();
}

absl::StatusOr<nlohmann::json> ParseJson(absl::string_view text, absl::string_view what) {
  nlohmann::json parsed =
      nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return absl::InternalError(absl::StrCat(what, ": response is not valid JSON"));
  }
  return parsed;
}

absl::StatusOr<std::string> SerializeJson(const nlohmann::json& value) {
  try {
    return value.dump();
  } catch (const nlohmann::json::exception&) {
    // e.what() quotes the offending byte, which may belong to secret data.
    return absl::InvalidArgumentError("object holds a string that is not valid UTF-8");
  }
}

}  // namespace credledger::kubebridge
