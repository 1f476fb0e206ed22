// Test helpers that fill the test API server with what an agent's target cluster holds:
// Flux OCIRepository/HelmRelease pairs (from the fixtures in test/testdata/flux, renamed),
// Nodes as a kubelet registers them, and Pods with a status.phase. Objects whose resource
// has a status subresource get their status through it, as their controllers write it.
#pragma once

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kubebridge/agent/report_collector.h"
#include "kubebridge/client/curl_transport.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/resource_ref.h"
#include "nlohmann/json.hpp"

namespace credledger::kubebridge {

class TargetClusterObjects {
 public:
  // `client` and `config` reach the same server as an admin. REQUIRES: both outlive this.
  TargetClusterObjects(KubeClient& client, const ConnectionConfig& config)
      : client_(client), config_(config) {}

  // The fixture test/testdata/flux/<scenario>/<file> renamed to <ns>/<name>, labelled and
  // annotated as release `release`, without the fields the server sets.
  static nlohmann::json FluxFixture(const std::string& scenario, const std::string& file,
                                    const std::string& ns, const std::string& name,
                                    const std::string& release) {
    std::ifstream in(std::filesystem::path(KUBEBRIDGE_FLUX_TESTDATA_DIR) / scenario / file);
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::json object = nlohmann::json::parse(text.str(), nullptr, false);
    EXPECT_TRUE(object.is_object()) << scenario << "/" << file;
    nlohmann::json& meta = object["metadata"];
    for (const char* field :
         {"uid", "resourceVersion", "creationTimestamp", "generation", "finalizers"}) {
      meta.erase(field);
    }
    meta["name"] = name;
    meta["namespace"] = ns;
    meta["labels"] = {{"solar.opendefense.cloud/release", release}};
    meta["annotations"] = {{"solar.opendefense.cloud/release", release}};
    return object;
  }

  // Creates the OCIRepository and HelmRelease of `scenario` for `release` in `ns`.
  void CreateFluxPair(const std::string& scenario, const std::string& ns,
                      const std::string& release) {
    Create(OCIRepositoryResource(),
           FluxFixture(scenario, "ocirepository.json", ns, release, release));
    Create(HelmReleaseResource(), FluxFixture(scenario, "helmrelease.json", ns, release, release));
  }

  static nlohmann::json Node(const std::string& name, const std::string& cpu,
                             const std::string& memory) {
    nlohmann::json resources = {{"cpu", cpu}, {"memory", memory}, {"pods", "110"}};
    return {{"apiVersion", "v1"},
            {"kind", "Node"},
            {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/hostname", name}}}}},
            {"status",
             {{"capacity", resources},
              {"allocatable", resources},
              {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
  }

  static nlohmann::json Pod(const std::string& ns, const std::string& name,
                            const std::string& phase, const std::string& cpu,
                            const std::string& memory) {
    return {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"namespace", ns}}},
            {"spec",
             {{"nodeName", "worker-1"},
              {"containers",
               {{{"name", "main"},
                 {"image", "registry.example/app:1.0"},
                 {"resources", {{"requests", {{"cpu", cpu}, {"memory", memory}}}}}}}}}},
            {"status", {{"phase", phase}}}};
  }

  // Creates `object` in the collection `collection` (namespace from the object) and, when
  // it carries a status the server dropped, writes that status. Returns the stored object.
  nlohmann::json Create(ResourceRef collection, const nlohmann::json& object) {
    collection.namespace_name = object["metadata"].value("namespace", "");
    absl::StatusOr<nlohmann::json> created = client_.Create(collection, object);
    EXPECT_TRUE(created.ok()) << created.status();
    if (!created.ok() || !object.contains("status") || created->contains("status")) {
      return created.ok() ? *created : nlohmann::json();
    }
    nlohmann::json with_status = *created;
    with_status["status"] = object["status"];
    return PutStatus(collection.WithName(object["metadata"]["name"].get<std::string>()),
                     with_status);
  }

  // PUTs `object` to the status subresource of `ref`; returns the stored object.
  nlohmann::json PutStatus(const ResourceRef& ref, const nlohmann::json& object) {
    absl::StatusOr<std::unique_ptr<CurlTransport>> transport = CurlTransport::New(config_);
    EXPECT_TRUE(transport.ok()) << transport.status();
    absl::StatusOr<std::string> path = SubresourcePath(ref, "status");
    EXPECT_TRUE(path.ok()) << path.status();
    if (!transport.ok() || !path.ok()) return nlohmann::json();
    Cancellation never;
    absl::StatusOr<HttpResponse> response =
        (*transport)
            ->RoundTrip({.method = "PUT", .path = *path, .body = object.dump()}, never, nullptr);
    EXPECT_TRUE(response.ok()) << response.status();
    if (!response.ok()) return nlohmann::json();
    EXPECT_EQ(response->status_code, 200) << response->body;
    return nlohmann::json::parse(response->body, nullptr, false);
  }

 private:
  KubeClient& client_;
  const ConnectionConfig& config_;
};

}  // namespace credledger::kubebridge
