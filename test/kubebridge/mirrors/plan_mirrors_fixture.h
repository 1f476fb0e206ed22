// PlanMirrorsFixture: the state, source and live Secrets of one identity ("cloud", source
// ops/cloud-src, allowed in a, b and c) for tests of the planner (docs/mirrors.md, "How a
// change propagates"), without a server.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kubebridge/mirrors/mirror_objects.h"
#include "nlohmann/json.hpp"
#include "test/kubebridge/mirrors/mirror_test_objects.h"

namespace credledger::kubebridge {

// The source's data (key -> base64) of the fixture.
inline const nlohmann::json kPlanSourceData = {{"password", "aHVudGVyMg=="}, {"user", "YWRtaW4="}};

class PlanMirrorsFixture : public ::testing::Test {
 protected:
  PlanMirrorsFixture() {
    state_.set_name("cloud");
    state_.set_phase(v1::IdentityState::PHASE_ACTIVE);
    state_.mutable_spec()->mutable_secret_ref()->set_namespace_("ops");
    state_.mutable_spec()->mutable_secret_ref()->set_name("cloud-src");
    for (const char* ns : {"a", "b", "c"})
      state_.mutable_spec()->mutable_allowed_namespaces()->add_list(ns);
    source_.found = true;
    source_.data = kPlanSourceData;
    source_.hash = "h1";
    source_.fingerprint = "f1";
  }

  // Adds an entry for `ns` with one binding per owner.
  v1::IdentityNamespaceState* Entry(const std::string& ns,
                                    const std::vector<v1::OwnerReference>& owners) {
    v1::IdentityNamespaceState* entry = state_.add_namespaces();
    entry->set_namespace_(ns);
    for (const v1::OwnerReference& o : owners) *entry->add_bindings()->mutable_owner() = o;
    return entry;
  }
  // Records in `entry` the mirror `uid` holding the data with source fingerprint
  // `fingerprint` and the owner references `owners`.
  static void Record(v1::IdentityNamespaceState* entry, const std::string& uid,
                     const std::string& fingerprint,
                     const std::vector<v1::OwnerReference>& owners) {
    v1::MirrorRecord* record = entry->mutable_mirror();
    record->Clear();
    record->mutable_secret()->set_name("captf-creds-cloud");
    record->mutable_secret()->set_uid(uid);
    record->set_source_fingerprint(fingerprint);
    for (const v1::OwnerReference& o : owners) *record->add_owners() = o;
  }
  // Our mirror in `ns` as the API server would return it.
  static nlohmann::json Live(const std::string& ns, const std::string& uid, const std::string& hash,
                             const std::vector<v1::OwnerReference>& owners) {
    nlohmann::json live = DesiredMirror("cloud", ns, kPlanSourceData, hash, owners);
    live["metadata"]["uid"] = uid;
    live["metadata"]["resourceVersion"] = "7";
    return live;
  }
  static nlohmann::json Foreign(const std::string& ns) {
    return {{"apiVersion", "v1"},
            {"kind", "Secret"},
            {"metadata", {{"name", "captf-creds-cloud"}, {"namespace", ns}, {"uid", "f1"}}},
            {"data", {{"x", "eQ=="}}}};
  }
  // The plan of a state with one namespace; `held_back` as PlanMirrors takes it.
  MirrorAction PlanOne(const std::map<std::string, nlohmann::json>& existing,
                       const std::set<std::string>& held_back = {}) {
    std::vector<MirrorAction> plan = PlanMirrors(state_, existing, source_, held_back);
    EXPECT_EQ(plan.size(), 1u);
    return plan.empty() ? MirrorAction{} : plan[0];
  }

  v1::IdentityState state_;
  MirrorSource source_;
  const v1::OwnerReference c1_ = Owner("c1", "u1");
};

}  // namespace credledger::kubebridge
