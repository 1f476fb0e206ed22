#include "audit/witness.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "audit/checkpoint_json.h"
#include "common/dns_label.h"
#include "common/status_macros.h"

namespace credledger::audit {
namespace {

constexpr char kFilePrefix[] = "file:";
constexpr char kKubernetesPrefix[] = "kubernetes:";

absl::Status BadSpec(absl::string_view flag, absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat(flag, ": \"", text, "\": ", why,
                   "; expected file:<path> or kubernetes:<namespace>/<configmap>"));
}

}  // namespace

absl::StatusOr<WitnessSpec> ParseWitnessSpec(absl::string_view flag, absl::string_view text) {
  WitnessSpec spec;
  spec.text = std::string(text);
  if (absl::StartsWith(text, kFilePrefix)) {
    spec.kind = WitnessSpec::Kind::kFile;
    spec.path = std::string(text.substr(sizeof(kFilePrefix) - 1));
    if (spec.path.empty()) return BadSpec(flag, text, "the path is empty");
    return spec;
  }
  if (!absl::StartsWith(text, kKubernetesPrefix)) {
    return BadSpec(flag, text, "unknown kind of witness");
  }
  const std::vector<std::string> parts =
      absl::StrSplit(text.substr(sizeof(kKubernetesPrefix) - 1), '/');
  if (parts.size() != 2) return BadSpec(flag, text, "name one namespace and one ConfigMap");
  spec.kind = WitnessSpec::Kind::kKubernetes;
  spec.configmap_namespace = parts[0];
  spec.configmap_name = parts[1];
  if (absl::Status s = common::ValidateDnsLabel("namespace", parts[0]); !s.ok()) {
    return BadSpec(flag, text, s.message());
  }
  if (absl::Status s = common::ValidateDnsSubdomain("ConfigMap name", parts[1]); !s.ok()) {
    return BadSpec(flag, text, s.message());
  }
  return spec;
}

std::string RenderWitnessLines(const std::vector<v1::Checkpoint>& checkpoints) {
  std::string out;
  for (const v1::Checkpoint& checkpoint : checkpoints) {
    absl::StrAppend(&out, CheckpointToJson(checkpoint).dump(), "\n");
  }
  return out;
}

absl::StatusOr<std::vector<v1::Checkpoint>> ParseWitnessLines(absl::string_view name,
                                                              absl::string_view text) {
  std::vector<v1::Checkpoint> checkpoints;
  const std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    // Every line written ends with '}': one that does not (the piece after the last '\n'
    // included) is a write a crash cut short, and holds no checkpoint.
    if (!absl::EndsWith(lines[i], "}")) continue;
    const std::string where = absl::StrCat(name, ": line ", i + 1, ": ");
    const Json json = Json::parse(lines[i], nullptr, /*allow_exceptions=*/false);
    if (!json.is_object()) {
      return absl::DataLossError(absl::StrCat(where, "not a JSON object"));
    }
    v1::Checkpoint checkpoint;
    if (absl::Status s = CheckpointFromJson(json, "", checkpoint); !s.ok()) {
      return absl::DataLossError(absl::StrCat(where, s.message()));
    }
    if (!checkpoints.empty() && checkpoint.seq() <= checkpoints.back().seq()) {
      return absl::DataLossError(absl::StrCat(where, "seq ", checkpoint.seq(),
                                              " does not follow seq ", checkpoints.back().seq()));
    }
    checkpoints.push_back(std::move(checkpoint));
  }
  return checkpoints;
}

}  // namespace credledger::audit
