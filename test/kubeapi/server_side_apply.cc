#include "test/kubeapi/server_side_apply.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "test/kubeapi/json_util.h"
#include "test/kubeapi/kube_status.h"
#include "test/kubeapi/kube_time.h"
#include "test/kubeapi/managed_fields.h"
#include "test/kubeapi/request_info.h"

namespace credledger::kubeapi {
namespace {

constexpr char kApplyOperation[] = "Apply";

// A field the apply sets that another manager owns with another value.
struct ApplyConflict {
  FieldPath field;
  const ManagedFieldsEntry* owner;
};

absl::Status PatchOptionsError(const char* reason, const char* field, const char* message) {
  return InvalidError("PatchOptions", "meta.k8s.io", "", {{reason, field, message}});
}

// The manager as conflicts name it: "\"owner\"" for an applier, "\"kubectl-label\" using v1
// at 2026-01-01T00:00:00Z" for an updater.
std::string DescribeManager(const ManagedFieldsEntry& entry) {
  std::string quoted = nlohmann::json(entry.manager).dump();
  if (entry.operation == kApplyOperation) return quoted;
  std::string described = absl::StrCat(quoted, " using ", entry.api_version);
  if (!entry.time.empty()) absl::StrAppend(&described, " at ", entry.time);
  return described;
}

// Gives `next` the type and identity the configuration states (apiVersion, kind, and
// metadata.namespace and resourceVersion when set), for the update rules to check against
// the URL and the stored object.
void CarryTypeAndIdentity(const nlohmann::json& configuration, nlohmann::json& next) {
  for (const char* key : {"apiVersion", "kind"}) {
    auto value = configuration.find(key);
    if (value != configuration.end()) {
      next[key] = *value;
    } else {
      next.erase(key);
    }
  }
  for (const char* key : {"namespace", "resourceVersion"}) {
    const std::string value = MetadataString(configuration, key);
    if (!value.empty()) next["metadata"][key] = value;
  }
}

absl::Status ConflictStatus(const std::vector<ApplyConflict>& conflicts) {
  nlohmann::json causes = nlohmann::json::array();
  std::map<std::string, std::vector<std::string>> fields_by_manager;
  for (const ApplyConflict& c : conflicts) {
    std::string manager = DescribeManager(*c.owner);
    std::string field = FieldPathString(c.field);
    causes.push_back({{"reason", "FieldManagerConflict"},
                      {"message", absl::StrCat("conflict with ", manager)},
                      {"field", field}});
    fields_by_manager[manager].push_back(std::move(field));
  }
  std::string message;
  if (conflicts.size() == 1) {
    message = absl::StrCat("Apply failed with 1 conflict: conflict with ",
                           DescribeManager(*conflicts[0].owner), ": ",
                           FieldPathString(conflicts[0].field));
  } else {
    std::vector<std::string> lines;
    for (const auto& [manager, fields] : fields_by_manager) {
      lines.push_back(absl::StrCat("conflicts with ", manager, ":"));
      for (const std::string& field : fields) lines.push_back(absl::StrCat("- ", field));
    }
    message = absl::StrCat("Apply failed with ", conflicts.size(),
                           " conflicts: ", absl::StrJoin(lines, "\n"));
  }
  return KubeStatusError(409, "Conflict", message, {{"causes", causes}});
}

}  // namespace

bool IsApplyPatch(const std::string& content_type) {
  return content_type.substr(0, content_type.find(';')) == "application/apply-patch+yaml";
}

absl::StatusOr<ApplyRequest> ParseApplyRequest(const HttpRequest& http, const std::string& name,
                                               std::string api_version, absl::Time now) {
  ApplyRequest request;
  request.manager = QueryParam(http.params, "fieldManager");
  if (request.manager.empty()) {
    return PatchOptionsError("FieldValueRequired", "fieldManager",
                             "Required value: is required for apply patch");
  }
  const std::string force = QueryParam(http.params, "force");
  if (!force.empty() && force != "true" && force != "false") {
    return BadRequestError(absl::StrCat("force: invalid value ", nlohmann::json(force).dump(),
                                        ": must be true or false"));
  }
  request.force = force == "true";
  request.api_version = std::move(api_version);
  request.now = now;
  request.configuration = nlohmann::json::parse(http.body, nullptr, /*allow_exceptions=*/false);
  if (!request.configuration.is_object()) {
    return BadRequestError(
        "the apply configuration must be a JSON object (the test API server reads YAML only in "
        "its JSON form)");
  }
  nlohmann::json& meta = request.configuration["metadata"];
  if (meta.is_null()) meta = nlohmann::json::object();
  if (!meta.is_object()) return BadRequestError("metadata must be an object");
  if (!Field(meta, "managedFields").is_null()) {
    return BadRequestError("metadata.managedFields must be nil");
  }
  const std::string body_name = StringField(meta, "name");
  if (!body_name.empty() && body_name != name) {
    return BadRequestError(absl::StrCat("the name of the object (", body_name,
                                        ") does not match the name on the URL (", name, ")"));
  }
  meta["name"] = name;
  return request;
}

absl::Status CheckPatchOptions(const HttpRequest& http) {
  if (http.params.count("force") == 0) return absl::OkStatus();
  return PatchOptionsError("FieldValueForbidden", "force",
                           "Forbidden: may not be specified for non-apply patch");
}

void OwnAppliedObject(const ApplyRequest& request, nlohmann::json& created) {
  WriteManagedFields(
      created, {{request.manager, kApplyOperation, request.api_version, FormatKubeTime(request.now),
                 TrackedFields(request.configuration)}});
}

absl::StatusOr<nlohmann::json> MergeApply(const nlohmann::json& current,
                                          const ApplyRequest& request) {
  const nlohmann::json& configuration = request.configuration;
  std::vector<ManagedFieldsEntry> entries = ReadManagedFields(current);
  auto is_applier = [&](const ManagedFieldsEntry& e) {
    return e.manager == request.manager && e.operation == kApplyOperation;
  };
  const FieldSet applied = TrackedFields(configuration);

  std::vector<ApplyConflict> conflicts;
  for (const FieldPath& field : applied) {
    const nlohmann::json* live = FieldValue(current, field);
    if (live != nullptr && *live == *FieldValue(configuration, field)) continue;
    for (const ManagedFieldsEntry& entry : entries) {
      if (!is_applier(entry) && entry.fields.count(field) > 0) conflicts.push_back({field, &entry});
    }
  }
  if (!conflicts.empty() && !request.force) return ConflictStatus(conflicts);
  for (ManagedFieldsEntry& entry : entries) {
    if (is_applier(entry)) continue;
    for (const ApplyConflict& c : conflicts) {
      if (c.owner == &entry) entry.fields.erase(c.field);
    }
  }

  auto applier = std::find_if(entries.begin(), entries.end(), is_applier);
  if (applier == entries.end()) {
    entries.push_back({request.manager, kApplyOperation, request.api_version, "", {}});
    applier = entries.end() - 1;
  }
  nlohmann::json next = current;
  for (const FieldPath& field : applied) SetField(next, field, *FieldValue(configuration, field));
  for (const FieldPath& field : applier->fields) {
    if (applied.count(field) > 0) continue;
    bool owned_by_another = std::any_of(entries.begin(), entries.end(), [&](const auto& e) {
      return !is_applier(e) && e.fields.count(field) > 0;
    });
    if (!owned_by_another) RemoveField(next, field);
  }
  applier->fields = applied;
  applier->api_version = request.api_version;
  WriteManagedFields(next, entries);
  CarryTypeAndIdentity(configuration, next);
  if (next == current) return next;
  // Something changed: the applier's entry carries the time of this change.
  applier->time = FormatKubeTime(request.now);
  WriteManagedFields(next, entries);
  return next;
}

}  // namespace credledger::kubeapi
