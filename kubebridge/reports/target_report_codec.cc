#include "kubebridge/reports/target_report_codec.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/quote_cut.h"
#include "common/rfc3339.h"
#include "common/status_macros.h"
#include "kubebridge/credentials/agent_objects.h"
#include "projections/proto_time.h"
#include "projections/release_phase.h"

namespace credledger::kubebridge {
namespace {

using nlohmann::json;

// Longest part of a refused value quoted in a message.
constexpr size_t kShownValueBytes = 64;

absl::Status WrongType(absl::string_view path, absl::string_view expected, const json& value) {
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": expected ", expected, ", got ", value.type_name()));
}

// The member `key` of `object`; nullptr when absent or null.
const json* Member(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

absl::Status ReadString(const json& object, absl::string_view path, const char* key,
                        std::string* out) {
  const json* value = Member(object, key);
  if (value == nullptr) return absl::OkStatus();
  if (!value->is_string()) return WrongType(absl::StrCat(path, ".", key), "a string", *value);
  *out = value->get<std::string>();
  return absl::OkStatus();
}

// An integer in [min, max]; absent leaves `out` unchanged.
absl::Status ReadInt(const json& object, absl::string_view path, const char* key, int64_t min,
                     int64_t max, int64_t* out) {
  const json* value = Member(object, key);
  if (value == nullptr) return absl::OkStatus();
  const std::string field = absl::StrCat(path, ".", key);
  if (!value->is_number_integer()) return WrongType(field, "an integer", *value);
  const bool too_big = value->is_number_unsigned()
                           ? value->get<uint64_t>() > static_cast<uint64_t>(max)
                           : value->get<int64_t>() > max;
  if (too_big || (!value->is_number_unsigned() && value->get<int64_t>() < min)) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": ", value->dump(), " is out of range [", min, ", ", max, "]"));
  }
  *out = value->get<int64_t>();
  return absl::OkStatus();
}

// An RFC 3339 time; nullopt when absent.
absl::StatusOr<std::optional<google::protobuf::Timestamp>> ReadTime(const json& object,
                                                                    absl::string_view path,
                                                                    const char* key) {
  std::string text;
  RETURN_IF_ERROR(ReadString(object, path, key, &text));
  if (Member(object, key) == nullptr) return std::nullopt;
  absl::Time t;
  if (!ParseKubeTime(text, &t)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ".", key, ": ",
                                                   common::QuoteCut(text, kShownValueBytes),
                                                   " is not an RFC 3339 time"));
  }
  return projections::ToProto(t);
}

// The object `key` of `object` (nullptr when absent).
absl::StatusOr<const json*> ReadObject(const json& object, absl::string_view path,
                                       const char* key) {
  const json* value = Member(object, key);
  if (value != nullptr && !value->is_object()) {
    return WrongType(absl::StrCat(path, ".", key), "an object", *value);
  }
  return value;
}

using ItemDecoder = std::function<absl::Status(const json& item, const std::string& path)>;

// Calls `decode(item, item_path)` for each object of the array `key`.
absl::Status ForEachItem(const json& object, absl::string_view path, const char* key,
                         const ItemDecoder& decode) {
  const json* list = Member(object, key);
  if (list == nullptr) return absl::OkStatus();
  const std::string field = absl::StrCat(path, ".", key);
  if (!list->is_array()) return WrongType(field, "an array", *list);
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string item_path = absl::StrCat(field, "[", i, "]");
    if (!(*list)[i].is_object()) return WrongType(item_path, "an object", (*list)[i]);
    RETURN_IF_ERROR(decode((*list)[i], item_path));
  }
  return absl::OkStatus();
}

absl::Status DecodeCondition(const json& item, const std::string& path, v1::ReportCondition* c) {
  RETURN_IF_ERROR(ReadString(item, path, "type", c->mutable_type()));
  RETURN_IF_ERROR(ReadString(item, path, "status", c->mutable_status()));
  RETURN_IF_ERROR(ReadString(item, path, "reason", c->mutable_reason()));
  RETURN_IF_ERROR(ReadString(item, path, "message", c->mutable_message()));
  int64_t generation = 0;
  RETURN_IF_ERROR(ReadInt(item, path, "observedGeneration", std::numeric_limits<int64_t>::min(),
                          std::numeric_limits<int64_t>::max(), &generation));
  c->set_observed_generation(generation);
  ASSIGN_OR_RETURN(std::optional<google::protobuf::Timestamp> time,
                   ReadTime(item, path, "lastTransitionTime"));
  if (time.has_value()) *c->mutable_last_transition_time() = *time;
  return absl::OkStatus();
}

absl::Status DecodePhase(const json& item, const std::string& path, v1::ReleaseStatus* release) {
  std::string name;
  RETURN_IF_ERROR(ReadString(item, path, "phase", &name));
  if (name.empty()) return absl::OkStatus();
  std::optional<v1::ReleasePhase> phase = projections::PhaseFromName(name);
  if (phase.has_value()) {
    release->set_phase(*phase);
    return absl::OkStatus();
  }
  std::vector<std::string> known;
  for (int p = v1::RELEASE_PHASE_PENDING; p <= v1::ReleasePhase_MAX; ++p) {
    known.push_back(projections::PhaseName(static_cast<v1::ReleasePhase>(p)));
  }
  return absl::InvalidArgumentError(absl::StrCat(path, ".phase: ",
                                                 common::QuoteCut(name, kShownValueBytes),
                                                 " is not one of ", absl::StrJoin(known, ", ")));
}

absl::Status DecodeRelease(const json& item, const std::string& path, v1::ReleaseStatus* r) {
  RETURN_IF_ERROR(ReadString(item, path, "name", r->mutable_name()));
  RETURN_IF_ERROR(ReadString(item, path, "namespace", r->mutable_namespace_()));
  RETURN_IF_ERROR(DecodePhase(item, path, r));
  RETURN_IF_ERROR(ReadString(item, path, "revision", r->mutable_revision()));
  RETURN_IF_ERROR(ForEachItem(item, path, "sourceConditions", [&](const json& c, const auto& p) {
    return DecodeCondition(c, p, r->add_source_conditions());
  }));
  return ForEachItem(item, path, "helmConditions", [&](const json& c, const auto& p) {
    return DecodeCondition(c, p, r->add_helm_conditions());
  });
}

absl::Status DecodeCheck(const json& item, const std::string& path, v1::PreflightCheck* check) {
  RETURN_IF_ERROR(ReadString(item, path, "type", check->mutable_type()));
  RETURN_IF_ERROR(ReadString(item, path, "status", check->mutable_status()));
  RETURN_IF_ERROR(ReadString(item, path, "reason", check->mutable_reason()));
  return ReadString(item, path, "message", check->mutable_message());
}

// A ResourceList: quantities are strings, or integers as Kubernetes' int-or-string schema
// allows. nlohmann::json objects iterate in key order, so entries come ordered by name.
absl::Status DecodeResourceList(
    const json& capacity, const std::string& path, const char* key,
    google::protobuf::RepeatedPtrField<v1::ResourceQuantity>* out) {
  ASSIGN_OR_RETURN(const json* list, ReadObject(capacity, path, key));
  if (list == nullptr) return absl::OkStatus();
  for (const auto& [resource, quantity] : list->items()) {
    v1::ResourceQuantity* entry = out->Add();
    entry->set_resource(resource);
    if (quantity.is_string()) {
      entry->set_quantity(quantity.get<std::string>());
    } else if (quantity.is_number_integer()) {
      entry->set_quantity(quantity.dump());
    } else {
      return WrongType(absl::StrCat(path, ".", key, "[", resource, "]"),
                       "a quantity string or an integer", quantity);
    }
  }
  return absl::OkStatus();
}

absl::Status DecodeCapacity(const json& spec, v1::TargetReportSpec* report) {
  ASSIGN_OR_RETURN(const json* capacity, ReadObject(spec, "spec", "capacity"));
  if (capacity == nullptr) return absl::OkStatus();
  const std::string path = "spec.capacity";
  v1::ClusterCapacity* out = report->mutable_capacity();
  int64_t node_count = 0;
  RETURN_IF_ERROR(ReadInt(*capacity, path, "nodeCount", std::numeric_limits<int32_t>::min(),
                          std::numeric_limits<int32_t>::max(), &node_count));
  out->set_node_count(static_cast<int32_t>(node_count));
  RETURN_IF_ERROR(DecodeResourceList(*capacity, path, "allocatable", out->mutable_allocatable()));
  return DecodeResourceList(*capacity, path, "used", out->mutable_used());
}

absl::Status DecodeSpec(const json& spec, v1::TargetReportSpec* report) {
  ASSIGN_OR_RETURN(std::optional<google::protobuf::Timestamp> time,
                   ReadTime(spec, "spec", "lastReportTime"));
  if (time.has_value()) *report->mutable_last_report_time() = *time;
  RETURN_IF_ERROR(ForEachItem(spec, "spec", "releases", [&](const json& r, const auto& p) {
    return DecodeRelease(r, p, report->add_releases());
  }));
  ASSIGN_OR_RETURN(const json* preflight, ReadObject(spec, "spec", "preflight"));
  if (preflight != nullptr) {
    RETURN_IF_ERROR(ForEachItem(*preflight, "spec.preflight", "checks",
                                [&](const json& c, const auto& p) {
                                  return DecodeCheck(c, p, report->add_preflight_checks());
                                }));
  }
  return DecodeCapacity(spec, report);
}

std::string FormatTime(const google::protobuf::Timestamp& t) {
  return common::FormatRfc3339(projections::FromProto(t));
}

json EncodeConditions(const google::protobuf::RepeatedPtrField<v1::ReportCondition>& list) {
  json out = json::array();
  for (const v1::ReportCondition& c : list) {
    json item = {{"type", c.type()},
                 {"status", c.status()},
                 {"reason", c.reason()},
                 {"message", c.message()}};
    if (c.observed_generation() != 0) item["observedGeneration"] = c.observed_generation();
    if (c.has_last_transition_time()) {
      item["lastTransitionTime"] = FormatTime(c.last_transition_time());
    }
    out.push_back(std::move(item));
  }
  return out;
}

json EncodeRelease(const v1::ReleaseStatus& r) {
  json out = {{"name", r.name()},
              {"namespace", r.namespace_()},
              {"phase", projections::PhaseName(r.phase())}};
  if (!r.revision().empty()) out["revision"] = r.revision();
  if (!r.source_conditions().empty()) {
    out["sourceConditions"] = EncodeConditions(r.source_conditions());
  }
  if (!r.helm_conditions().empty()) out["helmConditions"] = EncodeConditions(r.helm_conditions());
  return out;
}

json EncodeCheck(const v1::PreflightCheck& c) {
  json out = {{"type", c.type()}, {"status", c.status()}, {"reason", c.reason()}};
  if (!c.message().empty()) out["message"] = c.message();
  return out;
}

json EncodeResourceList(const google::protobuf::RepeatedPtrField<v1::ResourceQuantity>& list) {
  json out = json::object();
  for (const v1::ResourceQuantity& q : list) out[q.resource()] = q.quantity();
  return out;
}

}  // namespace

absl::StatusOr<std::optional<v1::TargetReportSpec>> DecodeTargetReport(const json& object) {
  if (!object.is_object()) return WrongType("TargetReport", "an object", object);
  const json* spec = Member(object, "spec");
  if (spec != nullptr && !spec->is_object()) return WrongType("spec", "an object", *spec);
  if (spec == nullptr || Member(*spec, "lastReportTime") == nullptr) return std::nullopt;
  v1::TargetReportSpec report;
  RETURN_IF_ERROR(DecodeSpec(*spec, &report));
  return report;
}

json EncodeTargetReportSpec(const v1::TargetReportSpec& spec) {
  json out = {{"releases", json::array()}};
  if (spec.has_last_report_time()) out["lastReportTime"] = FormatTime(spec.last_report_time());
  for (const v1::ReleaseStatus& r : spec.releases()) out["releases"].push_back(EncodeRelease(r));
  if (!spec.preflight_checks().empty()) {
    json checks = json::array();
    for (const v1::PreflightCheck& c : spec.preflight_checks()) checks.push_back(EncodeCheck(c));
    out["preflight"] = {{"checks", std::move(checks)}};
  }
  if (spec.has_capacity()) {
    const v1::ClusterCapacity& c = spec.capacity();
    out["capacity"] = {{"nodeCount", c.node_count()},
                       {"allocatable", EncodeResourceList(c.allocatable())},
                       {"used", EncodeResourceList(c.used())}};
  }
  return out;
}

}  // namespace credledger::kubebridge
