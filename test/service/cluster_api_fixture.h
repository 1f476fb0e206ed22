// ClusterApi on the IdentityApiFixture's log (identity_api_fixture.h: a real SQLite store,
// the identity and cluster projectors, an IdentityApi that sees the clusters), with a fake
// probe function that records a chosen outcome through a real BridgeClusterSink, as the
// cluster bridge does; shared by the cluster API tests and the cluster CLI tests.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "service/api/cluster_api.h"
#include "service/bridge/bridge_cluster_sink.h"
#include "test/service/cluster_fixtures.h"
#include "test/service/identity_api_fixture.h"

namespace credledger::service {

class ClusterApiFixture : public IdentityApiFixture {
 protected:
  void SetUp() override {
    IdentityApiFixture::SetUp();
    sink_ = std::make_unique<BridgeClusterSink>(cluster_bus_.get(), &clock_);
    clusters_api_ = MakeClusterApi(/*with_probe=*/true);
  }

  std::unique_ptr<ClusterApi> MakeClusterApi(bool with_probe) {
    ClusterProbeFunction probe;
    LastProbeFunction last_probe;
    if (with_probe) {
      probe = [this](const std::string& name, kubebridge::Cancellation* cancel) {
        return FakeProbe(name, cancel);
      };
      last_probe = [this](const std::string&) { return live_probe_; };
    }
    return std::make_unique<ClusterApi>(cluster_bus_.get(), clusters_.get(), projector_.get(),
                                        probe, last_probe, &clock_, ClusterApi::Options{});
  }

  // What the bridge does: probe (here: take `outcome_` for the current spec) and record.
  absl::StatusOr<v1::ClusterState> FakeProbe(const std::string& name,
                                             kubebridge::Cancellation* cancel) {
    probed_.push_back(name);
    if (cancel == nullptr) return absl::InternalError("the probe got no cancellation");
    absl::StatusOr<v1::ClusterState> state = cluster_bus_->LoadState({.cluster = name});
    if (!state.ok()) return state.status();
    v1::ClusterProbed outcome = outcome_;
    outcome.set_spec_version(state->spec_version());
    return sink_->RecordProbe(name, outcome);
  }

  static v1::RegisterClusterRequest Register(const std::string& name, const v1::ClusterSpec& spec,
                                             const std::string& request_id) {
    v1::RegisterClusterRequest request;
    request.set_request_id(request_id);
    request.set_name(name);
    *request.mutable_spec() = spec;
    return request;
  }

  static v1::DeregisterClusterRequest Deregister(const std::string& name,
                                                 const std::string& request_id) {
    v1::DeregisterClusterRequest request;
    request.set_request_id(request_id);
    request.set_name(name);
    return request;
  }

  absl::StatusOr<v1::GetClusterResponse> Get(const std::string& name) {
    v1::GetClusterRequest request;
    request.set_name(name);
    return clusters_api_->GetCluster(request);
  }

  absl::StatusOr<v1::GetClusterResponse> Probe(const std::string& name, ClusterApi& api) {
    v1::ProbeClusterRequest request;
    request.set_name(name);
    return api.ProbeCluster(request, nullptr);
  }

  std::vector<std::string> ListNames(bool include_deregistered) {
    v1::ListClustersRequest request;
    request.set_include_deregistered(include_deregistered);
    absl::StatusOr<v1::ListClustersResponse> listed = clusters_api_->ListClusters(request);
    EXPECT_OK(listed);
    std::vector<std::string> names;
    if (!listed.ok()) return names;
    EXPECT_EQ(listed->seq(), store_->HeadSeq());
    for (const v1::ClusterView& view : listed->clusters()) names.push_back(view.cluster().name());
    return names;
  }

  std::unique_ptr<BridgeClusterSink> sink_;
  std::unique_ptr<ClusterApi> clusters_api_;
  v1::ClusterProbed outcome_ = Succeeded(0);
  std::optional<absl::Time> live_probe_;
  std::vector<std::string> probed_;
};

}  // namespace credledger::service
