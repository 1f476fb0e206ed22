#include "test/kubeapi/discovery.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "test/kubeapi/kube_status.h"

namespace credledger::kubeapi {
namespace {

nlohmann::json GroupVersion(const std::string& group, const std::string& version) {
  return {{"groupVersion", absl::StrCat(group, "/", version)}, {"version", version}};
}

// Groups in name order, each with its versions (preferred first).
std::map<std::string, std::vector<std::string>> GroupVersions(const ServerContext& ctx) {
  std::map<std::string, std::vector<std::string>> groups;
  for (const ResourceInfo& info : ctx.registry.Discoverable()) {
    if (info.group.empty()) continue;
    std::vector<std::string>& versions = groups[info.group];
    for (const std::string& v : info.versions) {
      if (std::find(versions.begin(), versions.end(), v) == versions.end()) versions.push_back(v);
    }
  }
  return groups;
}

nlohmann::json ApiGroup(const std::string& name, const std::vector<std::string>& versions) {
  nlohmann::json list = nlohmann::json::array();
  for (const std::string& v : versions) list.push_back(GroupVersion(name, v));
  return {{"name", name}, {"versions", list}, {"preferredVersion", GroupVersion(name, versions[0])}};
}

nlohmann::json ResourceEntry(const ResourceInfo& info) {
  nlohmann::json verbs = info.create_only
                             ? nlohmann::json::array({"create"})
                             : nlohmann::json::array({"create", "delete", "deletecollection",
                                                      "get", "list", "patch", "update",
                                                      "watch"});
  nlohmann::json entry = {{"name", info.resource},
                          {"singularName", info.singular},
                          {"namespaced", info.namespaced},
                          {"kind", info.kind},
                          {"verbs", verbs}};
  if (!info.short_names.empty()) entry["shortNames"] = info.short_names;
  return entry;
}

nlohmann::json SubresourceEntry(const ResourceInfo& info, const std::string& sub) {
  nlohmann::json entry = {{"name", absl::StrCat(info.resource, "/", sub)},
                          {"singularName", ""},
                          {"namespaced", info.namespaced}};
  if (sub == "token") {
    entry["group"] = "authentication.k8s.io";
    entry["version"] = "v1";
    entry["kind"] = "TokenRequest";
    entry["verbs"] = nlohmann::json::array({"create"});
  } else {
    entry["kind"] = info.kind;
    entry["verbs"] = nlohmann::json::array({"get", "patch", "update"});
  }
  return entry;
}

HttpResponse ResourceList(const ServerContext& ctx, const std::string& group,
                          const std::string& version) {
  nlohmann::json resources = nlohmann::json::array();
  for (const ResourceInfo& info : ctx.registry.Discoverable()) {
    if (info.group != group ||
        std::find(info.versions.begin(), info.versions.end(), version) == info.versions.end()) {
      continue;
    }
    resources.push_back(ResourceEntry(info));
    for (const std::string& sub : info.subresources) resources.push_back(SubresourceEntry(info, sub));
  }
  if (resources.empty()) return ErrorResponse(PathNotFoundError());
  return JsonResponse(200, {{"kind", "APIResourceList"},
                            {"apiVersion", "v1"},
                            {"groupVersion", group.empty() ? version : absl::StrCat(group, "/", version)},
                            {"resources", resources}});
}

HttpResponse Text(const std::string& text) {
  HttpResponse response;
  response.content_type = "text/plain; charset=utf-8";
  response.body = text;
  return response;
}

nlohmann::json VersionInfo() {
  return {{"major", "1"},
          {"minor", "32"},
          {"gitVersion", "v1.32.0-credledger-test"},
          {"gitCommit", "0000000000000000000000000000000000000000"},
          {"gitTreeState", "clean"},
          {"buildDate", "2026-01-01T00:00:00Z"},
          {"goVersion", "go1.23.0"},
          {"compiler", "gc"},
          {"platform", "linux/amd64"}};
}

}  // namespace

bool IsAnonymousPath(const std::string& path) {
  return path == "/version" || path == "/healthz" || path == "/livez" || path == "/readyz";
}

HttpResponse ServeNonResource(ServerContext& ctx, const RequestInfo& info) {
  if (info.verb != "get" && info.verb != "head") return ErrorResponse(MethodNotAllowedError());
  std::vector<std::string> parts = absl::StrSplit(info.path, '/', absl::SkipEmpty());
  if (info.path == "/version") return JsonResponse(200, VersionInfo());
  if (info.path == "/healthz" || info.path == "/livez" || info.path == "/readyz") return Text("ok");
  if (parts.size() == 1 && parts[0] == "api") {
    return JsonResponse(200, {{"kind", "APIVersions"},
                              {"versions", nlohmann::json::array({"v1"})},
                              {"serverAddressByClientCIDRs",
                               nlohmann::json::array({{{"clientCIDR", "0.0.0.0/0"},
                                                       {"serverAddress",
                                                        ctx.config.server_address}}})}});
  }
  if (parts.size() == 2 && parts[0] == "api") return ResourceList(ctx, "", parts[1]);
  if (parts.size() == 1 && parts[0] == "apis") {
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& [name, versions] : GroupVersions(ctx)) groups.push_back(ApiGroup(name, versions));
    return JsonResponse(200, {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}});
  }
  if (parts.size() == 2 && parts[0] == "apis") {
    auto groups = GroupVersions(ctx);
    auto it = groups.find(parts[1]);
    if (it == groups.end()) return ErrorResponse(PathNotFoundError());
    nlohmann::json group = ApiGroup(it->first, it->second);
    group["kind"] = "APIGroup";
    group["apiVersion"] = "v1";
    return JsonResponse(200, group);
  }
  if (parts.size() == 3 && parts[0] == "apis") return ResourceList(ctx, parts[1], parts[2]);
  return ErrorResponse(PathNotFoundError());
}

}  // namespace credledger::kubeapi
