#include "cli/framework/spec_file.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "common/file_util.h"
#include "common/yaml_text.h"
#include "google/protobuf/stubs/common.h"

namespace credledger::cli {

absl::Status ParseSpecDocument(absl::string_view yaml,
                               absl::FunctionRef<absl::Status(const YAML::Node& root)> parse) {
  // Text over the size limit is refused for its size (by LoadAllYaml), not for its bytes.
  if (yaml.size() <= common::kMaxConfigFileBytes &&
      !google::protobuf::internal::IsStructurallyValidUTF8(yaml.data(),
                                                           static_cast<int>(yaml.size()))) {
    return absl::InvalidArgumentError("not valid UTF-8; a spec file is UTF-8 text");
  }
  absl::StatusOr<std::vector<YAML::Node>> documents =
      common::LoadAllYaml(yaml, common::kMaxConfigFileBytes);
  if (!documents.ok()) return documents.status();
  try {
    if (documents->empty()) {
      return absl::InvalidArgumentError("no YAML document found; one is expected");
    }
    // Empty documents (a `---` followed by nothing or only comments, as editors and
    // generators leave at the end of a file; `~`; `null`) hold no spec and are skipped.
    std::vector<YAML::Node> specs;
    for (const YAML::Node& document : *documents) {
      if (!document.IsNull()) specs.push_back(document);
    }
    if (specs.empty()) {
      return absl::InvalidArgumentError("the document is empty; one mapping is expected");
    }
    if (specs.size() > 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          specs.size(), " YAML documents found (separated by ---); one is expected"));
    }
    return parse(specs.front());
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("not valid YAML: ", e.what()));
  }
}

absl::Status ReadSpecDocument(const std::string& path,
                              absl::FunctionRef<absl::Status(const YAML::Node& root)> parse) {
  absl::StatusOr<std::string> text = common::ReadSmallFile(path);
  if (!text.ok()) return text.status();
  absl::Status status = ParseSpecDocument(*text, parse);
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat("\"", path, "\": ", status.message()));
}

}  // namespace credledger::cli
