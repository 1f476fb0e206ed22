#include "test/kubeapi/table_printer.h"

#include "absl/strings/str_cat.h"
#include "test/kubeapi/json_util.h"
#include "test/kubeapi/kube_time.h"

namespace credledger::kubeapi {
namespace {

nlohmann::json Column(const std::string& name, const std::string& type,
                      const std::string& format, const std::string& description) {
  return {{"name", name}, {"type", type}, {"format", format}, {"description", description},
          {"priority", 0}};
}

size_t CountOf(const nlohmann::json& v) { return v.is_object() || v.is_array() ? v.size() : 0; }

// Extra columns between Name and Age, and their cells for one object.
nlohmann::json ExtraColumns(const ResourceInfo& info) {
  if (!info.group.empty()) return nlohmann::json::array();
  if (info.kind == "Secret") {
    return nlohmann::json::array({Column("Type", "string", "", "The type of the secret"),
                                  Column("Data", "string", "", "The number of data entries")});
  }
  if (info.kind == "ConfigMap") {
    return nlohmann::json::array({Column("Data", "string", "", "The number of data entries")});
  }
  if (info.kind == "ServiceAccount") {
    return nlohmann::json::array({Column("Secrets", "string", "", "The number of secrets")});
  }
  if (info.kind == "Namespace") {
    return nlohmann::json::array({Column("Status", "string", "", "The status of the namespace")});
  }
  return nlohmann::json::array();
}

nlohmann::json ExtraCells(const ResourceInfo& info, const nlohmann::json& o) {
  if (!info.group.empty()) return nlohmann::json::array();
  using J = nlohmann::json;
  if (info.kind == "Secret") return J::array({StringField(o, "type"), CountOf(Field(o, "data"))});
  if (info.kind == "ConfigMap") {
    return J::array({CountOf(Field(o, "data")) + CountOf(Field(o, "binaryData"))});
  }
  if (info.kind == "ServiceAccount") return J::array({CountOf(Field(o, "secrets"))});
  if (info.kind == "Namespace") return J::array({StringField(Field(o, "status"), "phase")});
  return nlohmann::json::array();
}

}  // namespace

bool WantsTable(const std::string& accept) {
  return accept.find("as=Table") != std::string::npos;
}

nlohmann::json ToTable(const ResourceInfo& info, const std::vector<ObjectPtr>& items,
                       int64_t resource_version, const std::string& include_object,
                       absl::Time now) {
  nlohmann::json columns = nlohmann::json::array(
      {Column("Name", "string", "name", "Name must be unique within a namespace.")});
  for (const auto& c : ExtraColumns(info)) columns.push_back(c);
  columns.push_back(Column("Age", "string", "",
                           "CreationTimestamp is the time the object was created."));
  nlohmann::json rows = nlohmann::json::array();
  for (const ObjectPtr& item : items) {
    nlohmann::json cells = nlohmann::json::array({MetadataString(*item, "name")});
    for (const auto& c : ExtraCells(info, *item)) cells.push_back(c);
    std::optional<absl::Time> created = ParseKubeTime(MetadataString(*item, "creationTimestamp"));
    cells.push_back(created ? FormatAge(now - *created) : "<unknown>");
    nlohmann::json row = {{"cells", cells}};
    if (include_object == "Object") {
      row["object"] = *item;
    } else if (include_object != "None") {
      row["object"] = {{"kind", "PartialObjectMetadata"},
                       {"apiVersion", "meta.k8s.io/v1"},
                       {"metadata", Metadata(*item)}};
    }
    rows.push_back(row);
  }
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", {{"resourceVersion", absl::StrCat(resource_version)}}},
          {"columnDefinitions", columns},
          {"rows", rows}};
}

}  // namespace credledger::kubeapi
