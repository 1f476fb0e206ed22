#include "common/yaml_text.h"

#include <yaml-cpp/depthguard.h>

#include <exception>
#include <optional>
#include <string>
#include <utility>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace credledger::common {
namespace {

// Runs `load` on `text` when it has at most `max_bytes` bytes; yaml-cpp's exceptions become
// the errors LoadYaml documents.
absl::Status LoadBounded(absl::string_view text, size_t max_bytes,
                         absl::FunctionRef<void(const std::string&)> load) {
  if (text.size() > max_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("larger than the limit of ", max_bytes, " bytes"));
  }
  try {
    load(std::string(text));
  } catch (const YAML::DeepRecursion&) {
    // Its message ("bad file") and mark (for flow collections, the end of the text) do not
    // help the reader; the rule does.
    return absl::InvalidArgumentError(
        absl::StrCat("nested deeper than the limit of ", kMaxYamlDepth, " levels"));
  } catch (const YAML::Exception& e) {
    // The mark locates the problem; e.msg holds no document content.
    return absl::InvalidArgumentError(absl::StrCat("not valid YAML at line ", e.mark.line + 1,
                                                   ", column ", e.mark.column + 1, ": ", e.msg));
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("cannot parse the YAML: ", e.what()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<YAML::Node> LoadYaml(absl::string_view text, size_t max_bytes) {
  // An optional, because assigning to a YAML::Node that holds a value writes into its tree.
  std::optional<YAML::Node> root;
  absl::Status status = LoadBounded(
      text, max_bytes, [&root](const std::string& yaml) { root.emplace(YAML::Load(yaml)); });
  if (!status.ok()) return status;
  return *std::move(root);
}

absl::StatusOr<std::vector<YAML::Node>> LoadAllYaml(absl::string_view text, size_t max_bytes) {
  std::vector<YAML::Node> documents;
  absl::Status status = LoadBounded(
      text, max_bytes, [&documents](const std::string& yaml) { documents = YAML::LoadAll(yaml); });
  if (!status.ok()) return status;
  return documents;
}

}  // namespace credledger::common
