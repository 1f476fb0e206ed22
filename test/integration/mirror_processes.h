// MirrorProcessTest: LiveProcessTest with an identity to mirror (docs/mirrors.md): the source
// Secret demo/aws-keys readable by the Kubernetes user alice, namespace team-a, identity
// `aws` bound there through the CLI, and a wait for its mirror in the cluster.
//
// Thread-safety: a fixture belongs to its test's thread.
#pragma once

#include <map>
#include <string>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/credentials/agent_objects.h"
#include "projections/mirror_naming.h"
#include "test/integration/live_processes.h"
#include "test/support/bound_jobs.h"
#include "test/support/rbac_objects.h"
#include "test/support/status_matchers.h"

namespace credledger::testing {

class MirrorProcessTest : public LiveProcessTest {
 protected:
  // The source Secret demo/aws-keys with `data` (key -> raw value).
  static nlohmann::json Source(const std::map<std::string, std::string>& data) {
    nlohmann::json encoded = nlohmann::json::object();
    for (const auto& [key, value] : data) encoded[key] = absl::Base64Escape(value);
    return {{"apiVersion", "v1"},
            {"kind", "Secret"},
            {"metadata", {{"name", "aws-keys"}, {"namespace", kLiveNamespace}}},
            {"data", std::move(encoded)}};
  }

  // Creates namespace team-a, the source Secret with `data` and the Role that lets the
  // Kubernetes user alice read it (without a policy file the caller's declared name is the
  // Kubernetes user of the access review).
  void CreateSource(const std::map<std::string, std::string>& data) {
    ASSERT_OK(
        admin_
            ->Create(
                kubebridge::ResourceRef{"", "v1", "namespaces", "", ""},
                {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "team-a"}}}})
            .status());
    ASSERT_OK(admin_->Create(kubebridge::SecretResource(kLiveNamespace), Source(data)).status());
    ASSERT_OK(admin_
                  ->Create(kubebridge::RoleResource(kLiveNamespace),
                           SecretReaderRole("read-aws-keys", "aws-keys"))
                  .status());
    ASSERT_OK(admin_
                  ->Create(kubebridge::RoleBindingResource(kLiveNamespace),
                           RoleBindingTo("alice-reads-aws-keys", "read-aws-keys", "User", "alice"))
                  .status());
  }

  // Creates identity aws on demo/aws-keys, allowed in team-a, and binds a Job there (created
  // first: the mirror references it by its uid).
  void CreateAndBindIdentity() {
    absl::StatusOr<v1::OwnerReference> job = CreateJob(*admin_, "team-a", "plan");
    ASSERT_OK(job.status());
    EXPECT_EQ(Cli({"identity", "create", "aws", "--secret", "demo/aws-keys", "--allow-namespace",
                   "team-a", "--as", "alice"})
                  .exit_code,
              0);
    EXPECT_EQ(Cli({"identity", "bind", "aws", "--namespace", "team-a", "--owner",
                   "batch/v1/Job/plan", "--owner-uid", job->uid(), "--as", "alice"})
                  .exit_code,
              0);
  }

  // Follows the mirror Secret in `ns` until it holds source hash `hash` (a list, then a
  // watch from it; the watch's server-side timeout bounds the wait).
  bool WaitForMirror(const std::string& ns, const std::string& hash) {
    const std::string name = projections::MirrorSecretName("aws");
    const auto holds = [&](const nlohmann::json& secret) {
      return kubebridge::StringAt(secret, {"metadata", "annotations", "captf.io/source-hash"}) ==
             hash;
    };
    kubebridge::ListOptions by_name;
    by_name.field_selector = absl::StrCat("metadata.name=", name);
    absl::StatusOr<kubebridge::ObjectList> listed =
        admin_->List(kubebridge::SecretResource(ns), by_name);
    if (!listed.ok()) return false;
    for (const nlohmann::json& secret : listed->items) {
      if (holds(secret)) return true;
    }
    kubebridge::WatchOptions watch;
    watch.field_selector = by_name.field_selector;
    watch.resource_version = listed->resource_version;
    watch.timeout = kLiveWait;
    bool found = false;
    admin_
        ->WatchOnce(kubebridge::SecretResource(ns), watch,
                    [&](const kubebridge::WatchEvent& event) {
                      found = found || holds(event.object);
                      // Ending the watch early is the callback's error.
                      return found ? absl::CancelledError("mirror found") : absl::OkStatus();
                    })
        .IgnoreError();
    return found;
  }
};

}  // namespace credledger::testing
