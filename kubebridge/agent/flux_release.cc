#include "kubebridge/agent/flux_release.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/credentials/agent_objects.h"
#include "projections/proto_time.h"

namespace credledger::kubebridge {
namespace {

constexpr char kOCIRepository[] = "OCIRepository";
constexpr char kHelmRelease[] = "HelmRelease";

// A value inside an object and its path from the object's root; `value` is nullptr when
// the field is absent or null.
struct Field {
  const nlohmann::json* value = nullptr;
  std::string path;
};

// Typed access to the fields of one object; errors are prefixed with the object's kind
// and "namespace/name".
class FluxObjectReader {
 public:
  FluxObjectReader(absl::string_view kind, const nlohmann::json& object)
      : prefix_(absl::StrCat(kind, " \"", StringAt(object, {"metadata", "namespace"}), "/",
                             StringAt(object, {"metadata", "name"}), "\": ")),
        root_{&object, ""} {}

  const Field& root() const { return root_; }

  absl::Status Wrong(const Field& field, absl::string_view want) const {
    return absl::InvalidArgumentError(
        absl::StrCat(prefix_, field.path.empty() ? "object" : field.path, ": want ", want));
  }

  // The field reached from `from` by `keys`; absent when anything on the way is absent.
  absl::StatusOr<Field> Get(Field from, std::initializer_list<absl::string_view> keys) const {
    for (absl::string_view key : keys) {
      if (from.value != nullptr && !from.value->is_object()) return Wrong(from, "an object");
      Field next{nullptr, from.path.empty() ? std::string(key) : absl::StrCat(from.path, ".", key)};
      if (from.value != nullptr) {
        auto it = from.value->find(std::string(key));
        if (it != from.value->end() && !it->is_null()) next.value = &*it;
      }
      from = std::move(next);
    }
    return from;
  }

  absl::StatusOr<std::optional<int64_t>> Int(const Field& from,
                                             std::initializer_list<absl::string_view> keys) const {
    ASSIGN_OR_RETURN(Field field, Get(from, keys));
    if (field.value == nullptr) return std::optional<int64_t>();
    if (!field.value->is_number_integer()) return Wrong(field, "an integer");
    if (field.value->is_number_unsigned() &&
        field.value->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Wrong(field, "an integer that fits in 64 bits");
    }
    return std::optional<int64_t>(field.value->get<int64_t>());
  }

  // "" when absent.
  absl::StatusOr<std::string> String(const Field& from,
                                     std::initializer_list<absl::string_view> keys) const {
    ASSIGN_OR_RETURN(Field field, Get(from, keys));
    if (field.value == nullptr) return std::string();
    if (!field.value->is_string()) return Wrong(field, "a string");
    return field.value->get<std::string>();
  }

  // The elements of the array at `keys`, each with its path; none when absent.
  absl::StatusOr<std::vector<Field>> Items(const Field& from,
                                           std::initializer_list<absl::string_view> keys) const {
    ASSIGN_OR_RETURN(Field field, Get(from, keys));
    std::vector<Field> items;
    if (field.value == nullptr) return items;
    if (!field.value->is_array()) return Wrong(field, "an array");
    for (size_t i = 0; i < field.value->size(); ++i) {
      items.push_back(Field{&(*field.value)[i], absl::StrCat(field.path, "[", i, "]")});
    }
    return items;
  }

 private:
  std::string prefix_;
  Field root_;
};

absl::StatusOr<v1::ReportCondition> ReadCondition(const FluxObjectReader& reader,
                                                  const Field& entry) {
  if (entry.value == nullptr || !entry.value->is_object()) return reader.Wrong(entry, "an object");
  v1::ReportCondition condition;
  ASSIGN_OR_RETURN(*condition.mutable_type(), reader.String(entry, {"type"}));
  ASSIGN_OR_RETURN(*condition.mutable_status(), reader.String(entry, {"status"}));
  ASSIGN_OR_RETURN(*condition.mutable_reason(), reader.String(entry, {"reason"}));
  ASSIGN_OR_RETURN(*condition.mutable_message(), reader.String(entry, {"message"}));
  ASSIGN_OR_RETURN(std::optional<int64_t> observed, reader.Int(entry, {"observedGeneration"}));
  condition.set_observed_generation(observed.value_or(0));
  ASSIGN_OR_RETURN(std::string transition, reader.String(entry, {"lastTransitionTime"}));
  if (!transition.empty()) {
    absl::Time at;
    if (!ParseKubeTime(transition, &at)) {
      ASSIGN_OR_RETURN(Field field, reader.Get(entry, {"lastTransitionTime"}));
      return reader.Wrong(field, "an RFC 3339 time");
    }
    *condition.mutable_last_transition_time() = projections::ToProto(at);
  }
  return condition;
}

// metadata.generation and status.conditions, shared by both kinds.
absl::Status ReadGenerationAndConditions(const FluxObjectReader& reader, int64_t* generation,
                                         std::vector<v1::ReportCondition>* conditions) {
  if (!reader.root().value->is_object()) return reader.Wrong(reader.root(), "an object");
  ASSIGN_OR_RETURN(std::optional<int64_t> gen,
                   reader.Int(reader.root(), {"metadata", "generation"}));
  *generation = gen.value_or(0);
  ASSIGN_OR_RETURN(std::vector<Field> entries,
                   reader.Items(reader.root(), {"status", "conditions"}));
  for (const Field& entry : entries) {
    ASSIGN_OR_RETURN(v1::ReportCondition condition, ReadCondition(reader, entry));
    conditions->push_back(std::move(condition));
  }
  return absl::OkStatus();
}

// status.history[0].chartVersion; "" when there is no history.
absl::StatusOr<std::string> LiveChartVersion(const nlohmann::json& helm_release) {
  const FluxObjectReader reader(kHelmRelease, helm_release);
  ASSIGN_OR_RETURN(std::vector<Field> history, reader.Items(reader.root(), {"status", "history"}));
  if (history.empty()) return std::string();
  return reader.String(history.front(), {"chartVersion"});
}

// An object of a list that names a release.
struct Claim {
  std::string ns;
  std::string release;
  std::string name;
  const nlohmann::json* object;
};

// The claims of `list` (the items of a list of `kind`), the winner of each (namespace,
// release) first in (namespace, release, name) order. Losers are described in `ignored`.
absl::StatusOr<std::vector<Claim>> WinningClaims(const nlohmann::json& list, absl::string_view kind,
                                                 std::vector<std::string>* ignored) {
  const std::string what = absl::StrCat(kind, " list");
  if (!list.is_array()) return absl::InvalidArgumentError(absl::StrCat(what, ": want an array"));
  std::vector<Claim> claims;
  for (size_t i = 0; i < list.size(); ++i) {
    const nlohmann::json& item = list[i];
    if (!item.is_object()) {
      return absl::InvalidArgumentError(absl::StrCat(what, "[", i, "]: want an object"));
    }
    std::string release = ReleaseNameOf(item);
    if (release.empty()) continue;
    claims.push_back(Claim{StringAt(item, {"metadata", "namespace"}), std::move(release),
                           StringAt(item, {"metadata", "name"}), &item});
  }
  std::sort(claims.begin(), claims.end(), [](const Claim& a, const Claim& b) {
    return std::tie(a.ns, a.release, a.name) < std::tie(b.ns, b.release, b.name);
  });
  std::vector<Claim> winners;
  for (Claim& claim : claims) {
    if (!winners.empty() && winners.back().ns == claim.ns &&
        winners.back().release == claim.release) {
      if (ignored != nullptr) {
        ignored->push_back(absl::StrCat(
            kind, " \"", claim.ns, "/", claim.name, "\" ignored: release \"", claim.release,
            "\" already claimed by ", kind, " \"", claim.ns, "/", winners.back().name, "\""));
      }
      continue;
    }
    winners.push_back(std::move(claim));
  }
  return winners;
}

// What a release gathered from its two lists.
struct Pair {
  std::optional<projections::SourceHalf> source;
  std::optional<projections::HelmReleaseHalf> helm;
  std::string revision;
};

v1::ReleaseStatus StatusOf(const std::string& ns, const std::string& release, const Pair& pair) {
  v1::ReleaseStatus status;
  status.set_name(release);
  status.set_namespace_(ns);
  status.set_phase(projections::DerivePhase(pair.source, pair.helm));
  status.set_revision(pair.revision);
  if (pair.source.has_value()) {
    for (v1::ReportCondition& c :
         projections::CurrentConditions(pair.source->generation, pair.source->conditions)) {
      *status.add_source_conditions() = std::move(c);
    }
  }
  if (pair.helm.has_value()) {
    for (v1::ReportCondition& c :
         projections::CurrentConditions(pair.helm->generation, pair.helm->conditions)) {
      *status.add_helm_conditions() = std::move(c);
    }
  }
  return status;
}

// The non-empty string at metadata.<map>[kReleaseKey]; "" otherwise.
std::string MetadataEntry(const nlohmann::json& object, absl::string_view map) {
  return StringAt(object, {"metadata", map, kReleaseKey});
}

}  // namespace

std::string ReleaseNameOf(const nlohmann::json& object) {
  std::string name = MetadataEntry(object, "annotations");
  return name.empty() ? MetadataEntry(object, "labels") : name;
}

absl::StatusOr<projections::SourceHalf> SourceHalfFromOCIRepository(
    const nlohmann::json& oci_repository) {
  const FluxObjectReader reader(kOCIRepository, oci_repository);
  projections::SourceHalf half;
  RETURN_IF_ERROR(ReadGenerationAndConditions(reader, &half.generation, &half.conditions));
  return half;
}

absl::StatusOr<projections::HelmReleaseHalf> HelmHalfFromHelmRelease(
    const nlohmann::json& helm_release) {
  const FluxObjectReader reader(kHelmRelease, helm_release);
  projections::HelmReleaseHalf half;
  RETURN_IF_ERROR(ReadGenerationAndConditions(reader, &half.generation, &half.conditions));
  const Field& root = reader.root();
  ASSIGN_OR_RETURN(std::optional<int64_t> install_failures,
                   reader.Int(root, {"status", "installFailures"}));
  ASSIGN_OR_RETURN(std::optional<int64_t> upgrade_failures,
                   reader.Int(root, {"status", "upgradeFailures"}));
  half.install_failures = install_failures.value_or(0);
  half.upgrade_failures = upgrade_failures.value_or(0);
  ASSIGN_OR_RETURN(half.install_retries,
                   reader.Int(root, {"spec", "install", "remediation", "retries"}));
  ASSIGN_OR_RETURN(half.upgrade_retries,
                   reader.Int(root, {"spec", "upgrade", "remediation", "retries"}));
  return half;
}

absl::StatusOr<std::vector<v1::ReleaseStatus>> ReleasesFromFlux(
    const nlohmann::json& oci_repositories, const nlohmann::json& helm_releases,
    std::vector<std::string>* ignored) {
  ASSIGN_OR_RETURN(std::vector<Claim> sources,
                   WinningClaims(oci_repositories, kOCIRepository, ignored));
  ASSIGN_OR_RETURN(std::vector<Claim> helms, WinningClaims(helm_releases, kHelmRelease, ignored));
  std::map<std::pair<std::string, std::string>, Pair> pairs;
  for (const Claim& claim : sources) {
    Pair& pair = pairs[std::make_pair(claim.ns, claim.release)];
    ASSIGN_OR_RETURN(pair.source, SourceHalfFromOCIRepository(*claim.object));
  }
  for (const Claim& claim : helms) {
    Pair& pair = pairs[std::make_pair(claim.ns, claim.release)];
    ASSIGN_OR_RETURN(pair.helm, HelmHalfFromHelmRelease(*claim.object));
    ASSIGN_OR_RETURN(pair.revision, LiveChartVersion(*claim.object));
  }
  std::vector<v1::ReleaseStatus> releases;
  releases.reserve(pairs.size());
  for (const auto& [key, pair] : pairs) {
    releases.push_back(StatusOf(key.first, key.second, pair));
  }
  return releases;
}

}  // namespace credledger::kubebridge
