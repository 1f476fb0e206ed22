#include "test/kubeapi/managed_fields.h"

#include <algorithm>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "test/kubeapi/json_util.h"
#include "test/kubeapi/kube_time.h"

namespace credledger::kubeapi {
namespace {

// Metadata maps tracked per key, and metadata fields tracked as a whole.
constexpr const char* kKeyedMetadata[] = {"labels", "annotations"};
constexpr const char* kAtomicMetadata[] = {"ownerReferences", "finalizers"};

bool IsOneOf(const std::string& value, const auto& names) {
  return std::any_of(std::begin(names), std::end(names),
                     [&](const char* name) { return value == name; });
}

// The tracked field that `path` (from a fieldsV1 tree) falls under; nullopt for fields that
// are not tracked (metadata.name, the label map itself, ...).
std::optional<FieldPath> TrackedFieldOf(const FieldPath& path) {
  if (path.empty()) return std::nullopt;
  if (path[0] != "metadata") return FieldPath{path[0]};
  if (path.size() >= 3 && IsOneOf(path[1], kKeyedMetadata)) {
    return FieldPath{"metadata", path[1], path[2]};
  }
  if (path.size() >= 2 && IsOneOf(path[1], kAtomicMetadata)) {
    return FieldPath{"metadata", path[1]};
  }
  return std::nullopt;
}

// Adds the tracked fields of the fieldsV1 `node` at `path` to `out`. A node is a member of
// the set when it is a leaf ({}), holds "." or holds list items ("k:", "v:", "i:" keys).
void CollectFields(const nlohmann::json& node, FieldPath& path, FieldSet& out) {
  if (!node.is_object()) return;
  bool member = node.empty();
  for (const auto& [key, child] : node.items()) {
    if (!absl::StartsWith(key, "f:")) {
      member = true;
      continue;
    }
    path.push_back(key.substr(2));
    CollectFields(child, path, out);
    path.pop_back();
  }
  if (!member) return;
  if (std::optional<FieldPath> field = TrackedFieldOf(path)) out.insert(*std::move(field));
}

nlohmann::json ToFieldsV1(const FieldSet& fields) {
  nlohmann::json out = nlohmann::json::object();
  for (const FieldPath& path : fields) {
    nlohmann::json* node = &out;
    for (const std::string& key : path) node = &(*node)[absl::StrCat("f:", key)];
    if (node->is_null()) *node = nlohmann::json::object();
  }
  return out;
}

}  // namespace

FieldSet TrackedFields(const nlohmann::json& object) {
  FieldSet fields;
  if (!object.is_object()) return fields;
  for (const auto& [key, value] : object.items()) {
    if (value.is_null() || key == "apiVersion" || key == "kind" || key == "metadata" ||
        key == "status") {
      continue;
    }
    fields.insert({key});
  }
  const nlohmann::json& meta = Metadata(object);
  for (const char* map : kKeyedMetadata) {
    const nlohmann::json& entries = Field(meta, map);
    if (!entries.is_object()) continue;
    for (const auto& [key, value] : entries.items()) {
      if (!value.is_null()) fields.insert({"metadata", map, key});
    }
  }
  for (const char* field : kAtomicMetadata) {
    if (!Field(meta, field).is_null()) fields.insert({"metadata", field});
  }
  return fields;
}

const nlohmann::json* FieldValue(const nlohmann::json& object, const FieldPath& path) {
  const nlohmann::json* node = &object;
  for (const std::string& key : path) {
    if (!node->is_object()) return nullptr;
    auto it = node->find(key);
    if (it == node->end() || it->is_null()) return nullptr;
    node = &*it;
  }
  return node;
}

void SetField(nlohmann::json& object, const FieldPath& path, const nlohmann::json& value) {
  nlohmann::json* node = &object;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    nlohmann::json& child = (*node)[path[i]];
    if (!child.is_object()) child = nlohmann::json::object();
    node = &child;
  }
  (*node)[path.back()] = value;
}

void RemoveField(nlohmann::json& object, const FieldPath& path) {
  if (path.empty() || !object.is_object()) return;
  if (path.size() == 1) {
    object.erase(path[0]);
    return;
  }
  auto meta = object.find(path[0]);
  if (meta == object.end() || !meta->is_object()) return;
  if (path.size() == 2) {
    meta->erase(path[1]);
    return;
  }
  auto map = meta->find(path[1]);
  if (map == meta->end() || !map->is_object()) return;
  map->erase(path[2]);
  if (map->empty()) meta->erase(map);
}

std::string FieldPathString(const FieldPath& path) {
  return absl::StrCat(".", absl::StrJoin(path, "."));
}

std::vector<ManagedFieldsEntry> ReadManagedFields(const nlohmann::json& object) {
  std::vector<ManagedFieldsEntry> entries;
  const nlohmann::json& list = Field(Metadata(object), "managedFields");
  if (!list.is_array()) return entries;
  for (const nlohmann::json& item : list) {
    if (!item.is_object()) continue;
    ManagedFieldsEntry entry{StringField(item, "manager"),
                             StringField(item, "operation"),
                             StringField(item, "apiVersion"),
                             StringField(item, "time"),
                             {}};
    FieldPath path;
    CollectFields(Field(item, "fieldsV1"), path, entry.fields);
    entries.push_back(std::move(entry));
  }
  return entries;
}

void WriteManagedFields(nlohmann::json& object, const std::vector<ManagedFieldsEntry>& entries) {
  nlohmann::json list = nlohmann::json::array();
  for (const ManagedFieldsEntry& entry : entries) {
    if (entry.fields.empty()) continue;
    nlohmann::json item = {{"manager", entry.manager},
                           {"operation", entry.operation},
                           {"apiVersion", entry.api_version},
                           {"fieldsType", "FieldsV1"},
                           {"fieldsV1", ToFieldsV1(entry.fields)}};
    if (!entry.time.empty()) item["time"] = entry.time;
    list.push_back(std::move(item));
  }
  if (!list.empty()) {
    object["metadata"]["managedFields"] = std::move(list);
    return;
  }
  if (!object.is_object()) return;
  auto meta = object.find("metadata");
  if (meta != object.end() && meta->is_object()) meta->erase("managedFields");
}

std::string UpdateManager(const std::string& field_manager, const std::string& user_agent) {
  if (!field_manager.empty()) return field_manager;
  return user_agent.substr(0, user_agent.find('/'));
}

void CarryManagedFields(const nlohmann::json& current, nlohmann::json& next) {
  if (!next.is_object()) return;
  nlohmann::json& meta = next["metadata"];
  if (meta.is_null()) meta = nlohmann::json::object();
  if (!meta.is_object()) return;
  auto sent = meta.find("managedFields");
  if (sent != meta.end() && !sent->is_null() && !(sent->is_array() && sent->empty())) return;
  const nlohmann::json& stored = Field(Metadata(current), "managedFields");
  if (stored.is_null()) {
    meta.erase("managedFields");
  } else {
    meta["managedFields"] = stored;
  }
}

void RecordUpdate(const nlohmann::json& before, nlohmann::json& after, const std::string& manager,
                  const std::string& api_version, absl::Time now) {
  std::vector<ManagedFieldsEntry> entries = ReadManagedFields(after);
  const FieldSet was = TrackedFields(before);
  const FieldSet is = TrackedFields(after);
  FieldSet changed;
  FieldSet written;
  for (const FieldPath& path : is) {
    if (was.count(path) == 0 || *FieldValue(before, path) != *FieldValue(after, path)) {
      changed.insert(path);
      written.insert(path);
    }
  }
  for (const FieldPath& path : was) {
    if (is.count(path) == 0) changed.insert(path);
  }
  for (ManagedFieldsEntry& entry : entries) {
    for (const FieldPath& path : changed) entry.fields.erase(path);
  }
  if (!written.empty()) {
    auto mine = std::find_if(entries.begin(), entries.end(), [&](const ManagedFieldsEntry& e) {
      return e.manager == manager && e.operation == "Update";
    });
    if (mine == entries.end()) {
      entries.push_back({manager, "Update", "", "", {}});
      mine = entries.end() - 1;
    }
    mine->fields.insert(written.begin(), written.end());
    mine->api_version = api_version;
    mine->time = FormatKubeTime(now);
  }
  WriteManagedFields(after, entries);
}

}  // namespace credledger::kubeapi
