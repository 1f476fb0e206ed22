#include "test/kubeapi/request_info.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "test/kubeapi/field_selector.h"

namespace credledger::kubeapi {
namespace {

std::string VerbForMethod(const std::string& method) {
  if (method == "POST") return "create";
  if (method == "GET" || method == "HEAD") return "get";
  if (method == "PUT") return "update";
  if (method == "PATCH") return "patch";
  if (method == "DELETE") return "delete";
  return "";
}

}  // namespace

std::string QueryParam(const std::multimap<std::string, std::string>& params,
                       const std::string& key) {
  auto it = params.find(key);
  return it == params.end() ? "" : it->second;
}

RequestInfo ParseRequestInfo(const std::string& method, const std::string& path,
                             const std::multimap<std::string, std::string>& params) {
  RequestInfo info;
  info.path = path;
  info.verb = absl::AsciiStrToLower(method);
  std::vector<std::string> parts = absl::StrSplit(path, '/', absl::SkipEmpty());
  size_t prefix = 0;
  if (parts.size() >= 3 && parts[0] == "apis") {
    info.group = parts[1];
    info.version = parts[2];
    prefix = 3;
  } else if (parts.size() >= 2 && parts[0] == "api") {
    info.version = parts[1];
    prefix = 2;
  }
  if (prefix == 0 || parts.size() == prefix) return info;  // non-resource (discovery)
  std::vector<std::string> rest(parts.begin() + static_cast<long>(prefix), parts.end());

  info.is_resource_request = true;
  info.verb = VerbForMethod(method);
  if (rest[0] == "watch") {
    info.verb = "watch";
    rest.erase(rest.begin());
    if (rest.empty()) {
      info.is_resource_request = false;
      info.verb = absl::AsciiStrToLower(method);
      return info;
    }
  }
  if (rest[0] == "namespaces" && rest.size() > 1) {
    info.namespace_name = rest[1];
    if (rest.size() > 2 && !(rest.size() == 3 && (rest[2] == "status" || rest[2] == "finalize"))) {
      rest.erase(rest.begin(), rest.begin() + 2);
      info.namespaced_path = true;
    }
  }
  info.resource = rest[0];
  if (rest.size() >= 2) {
    info.name = rest[1];
    info.name_from_path = true;
  }
  if (rest.size() >= 3) info.subresource = rest[2];

  if (info.name.empty() && info.verb == "get") {
    std::string watch = QueryParam(params, "watch");
    info.verb = (watch == "true" || watch == "1") ? "watch" : "list";
  }
  if (info.name.empty() && (info.verb == "list" || info.verb == "watch")) {
    absl::StatusOr<FieldSelector> fs = FieldSelector::Parse(QueryParam(params, "fieldSelector"));
    if (fs.ok()) {
      std::optional<std::string> name = fs->RequiredName();
      if (name && name->find('/') == std::string::npos) info.name = *name;
    }
  }
  if (info.name.empty() && info.verb == "delete") info.verb = "deletecollection";
  return info;
}

}  // namespace credledger::kubeapi
