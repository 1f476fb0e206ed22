// Contract tests: garbage collection of dependents whose owners are gone, as the garbage
// collector of kube-controller-manager does it (docs/testing.md, "Garbage collection"):
// owners matched by name and uid, references it cannot resolve, cluster-scoped owners,
// cascades, watch events and recorded requests, the background period and its flag.
#include "test/kubeapi/garbage_collector.h"

#include <httplib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/kubeapi/json_util.h"
#include "test/kubeapi/request_recorder.h"
#include "test/kubeapi/test_support.h"
#include "test/kubebridge/await_sleepers.h"
#include "test/support/status_matchers.h"
#include "test/support/subprocess.h"
#include "test/support/temp_dir.h"

namespace credledger::kubeapi::testing {
namespace garbage_collector_test {

using ::credledger::testing::RunResult;
using ::credledger::testing::StatusIs;
using ::credledger::testing::Subprocess;
using ::credledger::testing::TempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const char kSecrets[] = "/api/v1/namespaces/team-a/secrets";
// The uid of an object that never existed.
const char kNeverUid[] = "0b7e4a1c-3f2d-4e5a-9b8c-1d2e3f4a5b6c";

nlohmann::json Ref(const std::string& api_version, const std::string& kind, const std::string& name,
                   const std::string& uid) {
  return {{"apiVersion", api_version}, {"kind", kind}, {"name", name}, {"uid", uid}};
}

// A reference to `owner`, a created object.
nlohmann::json RefTo(const nlohmann::json& owner) {
  return Ref(owner["apiVersion"], owner["kind"], owner["metadata"]["name"],
             owner["metadata"]["uid"]);
}

// The requests of `requests` as "<verb> <resource> <code> x<count>".
std::vector<std::string> Described(const std::vector<RequestCount>& requests) {
  std::vector<std::string> out;
  for (const RequestCount& r : requests) {
    out.push_back(absl::StrCat(r.verb, " ", r.resource, " ", r.code, " x", r.count));
  }
  return out;
}

class GarbageCollectorTest : public ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    CreateNamespace("team-a");
    CreateNamespace("team-b");
  }
  // Sweeps run only when a test asks for one.
  ApiServerOptions Options() override {
    ApiServerOptions options = ApiServerTest::Options();
    options.garbage_collection_period = absl::ZeroDuration();
    return options;
  }
  nlohmann::json CreateJob(const std::string& ns, const std::string& name) {
    return CreateObject(absl::StrCat("/apis/batch/v1/namespaces/", ns, "/jobs"),
                        {{"apiVersion", "batch/v1"},
                         {"kind", "Job"},
                         {"metadata", {{"name", name}}},
                         {"spec", nlohmann::json::object()}});
  }
  // A Secret in team-a owned by `refs`, like a mirror bound to them.
  nlohmann::json CreateOwned(const std::string& name, const std::vector<nlohmann::json>& refs,
                             const std::vector<std::string>& finalizers = {}) {
    return CreateObject(kSecrets, {{"apiVersion", "v1"},
                                   {"kind", "Secret"},
                                   {"metadata",
                                    {{"name", name},
                                     {"ownerReferences", nlohmann::json(refs)},
                                     {"finalizers", nlohmann::json(finalizers)}}}});
  }
  Reply GetSecret(const std::string& name) {
    return Admin().Get(absl::StrCat(kSecrets, "/", name));
  }
  std::vector<std::string> CollectorRequests() {
    return Described(server_->requests().CountsOf(kGarbageCollectorUser));
  }
};

TEST_F(GarbageCollectorTest, DependentWhoseOwnerNeverExistedIsDeleted) {
  CreateOwned("mirror", {Ref("batch/v1", "Job", "plan", kNeverUid)});
  EXPECT_EQ(server_->CollectGarbage(), 1);
  EXPECT_EQ(GetSecret("mirror").status, 404);
  EXPECT_EQ(server_->CollectGarbage(), 0);
}

TEST_F(GarbageCollectorTest, DependentOfAnExistingOwnerIsKeptUnchanged) {
  nlohmann::json job = CreateJob("team-a", "plan");
  nlohmann::json mirror = CreateOwned("mirror", {RefTo(job)});
  EXPECT_EQ(server_->CollectGarbage(), 0);
  Reply got = GetSecret("mirror");
  ASSERT_EQ(got.status, 200);
  EXPECT_EQ(got.body["metadata"]["resourceVersion"], mirror["metadata"]["resourceVersion"]);
  EXPECT_THAT(CollectorRequests(), IsEmpty());
}

TEST_F(GarbageCollectorTest, OwnerOfTheSameNameWithAnotherUidIsAbsent) {
  CreateJob("team-a", "plan");
  CreateOwned("mirror", {Ref("batch/v1", "Job", "plan", kNeverUid)});
  EXPECT_EQ(server_->CollectGarbage(), 1);
  EXPECT_EQ(GetSecret("mirror").status, 404);
}

TEST_F(GarbageCollectorTest, NamespacedOwnerIsLookedUpInTheDependentsNamespace) {
  nlohmann::json elsewhere = CreateJob("team-b", "plan");  // same name and uid, other namespace
  CreateOwned("mirror", {RefTo(elsewhere)});
  EXPECT_EQ(server_->CollectGarbage(), 1);
  EXPECT_EQ(GetSecret("mirror").status, 404);
}

TEST_F(GarbageCollectorTest, DeletingTheOwnerLetsTheNextSweepDeleteTheDependent) {
  nlohmann::json job = CreateJob("team-a", "plan");
  CreateOwned("mirror", {RefTo(job)});
  ASSERT_EQ(server_->CollectGarbage(), 0);
  ASSERT_EQ(Admin().Delete("/apis/batch/v1/namespaces/team-a/jobs/plan").status, 200);
  EXPECT_EQ(GetSecret("mirror").status, 200) << "nothing is collected between sweeps";
  EXPECT_EQ(server_->CollectGarbage(), 1);
  EXPECT_EQ(GetSecret("mirror").status, 404);
}

TEST_F(GarbageCollectorTest, OneExistingOwnerKeepsTheDependentAndDropsTheAbsentReference) {
  nlohmann::json job = CreateJob("team-a", "plan");
  nlohmann::json mirror =
      CreateOwned("mirror", {Ref("batch/v1", "Job", "apply", kNeverUid), RefTo(job)});
  EXPECT_EQ(server_->CollectGarbage(), 0);
  Reply got = GetSecret("mirror");
  ASSERT_EQ(got.status, 200);
  EXPECT_EQ(got.body["metadata"]["ownerReferences"], nlohmann::json::array({RefTo(job)}));
  EXPECT_NE(got.body["metadata"]["resourceVersion"], mirror["metadata"]["resourceVersion"]);
  EXPECT_THAT(CollectorRequests(), ElementsAre("patch secrets 200 x1"));
}

TEST_F(GarbageCollectorTest, ReferencesThatCannotBeResolvedLeaveTheDependentAlone) {
  const nlohmann::json unknown_kind = Ref("example.com/v1", "Widget", "w", kNeverUid);
  const nlohmann::json unserved_version = Ref("batch/v2", "Job", "plan", kNeverUid);
  const nlohmann::json absent = Ref("batch/v1", "Job", "plan", kNeverUid);
  std::vector<nlohmann::json> created = {
      CreateOwned("unknown-kind", {unknown_kind}),
      CreateOwned("unserved-version", {unserved_version}),
      CreateOwned("unknown-and-absent", {unknown_kind, absent}),
      CreateObject(
          "/apis/rbac.authorization.k8s.io/v1/clusterroles",
          {{"apiVersion", "rbac.authorization.k8s.io/v1"},
           {"kind", "ClusterRole"},
           {"metadata",
            {{"name", "owned-by-a-job"}, {"ownerReferences", nlohmann::json::array({absent})}}}})};
  EXPECT_EQ(server_->CollectGarbage(), 0);
  for (const nlohmann::json& object : created) {
    const std::string name = object["metadata"]["name"];
    Reply got = name == "owned-by-a-job"
                    ? Admin().Get("/apis/rbac.authorization.k8s.io/v1/clusterroles/owned-by-a-job")
                    : GetSecret(name);
    ASSERT_EQ(got.status, 200) << name;
    EXPECT_EQ(got.body["metadata"]["resourceVersion"], object["metadata"]["resourceVersion"])
        << name;
  }
  EXPECT_THAT(CollectorRequests(), IsEmpty());
}

TEST_F(GarbageCollectorTest, ClusterScopedOwnersAreLookedUpClusterWide) {
  nlohmann::json team_b = Admin().Get("/api/v1/namespaces/team-b").body;
  CreateOwned("owned-by-namespace", {RefTo(team_b)});
  nlohmann::json role = CreateObject("/apis/rbac.authorization.k8s.io/v1/clusterroles",
                                     {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                                      {"kind", "ClusterRole"},
                                      {"metadata", {{"name", "reader"}}}});
  const std::string binding_path = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/reader";
  CreateObject(
      "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      {{"apiVersion", "rbac.authorization.k8s.io/v1"},
       {"kind", "ClusterRoleBinding"},
       {"metadata",
        {{"name", "reader"}, {"ownerReferences", nlohmann::json::array({RefTo(role)})}}},
       {"roleRef",
        {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "reader"}}}});
  ASSERT_EQ(server_->CollectGarbage(), 0);

  ASSERT_EQ(Admin().Delete("/api/v1/namespaces/team-b").status, 200);
  ASSERT_EQ(Admin().Delete("/apis/rbac.authorization.k8s.io/v1/clusterroles/reader").status, 200);
  EXPECT_EQ(server_->CollectGarbage(), 2);
  EXPECT_EQ(GetSecret("owned-by-namespace").status, 404);
  EXPECT_EQ(Admin().Get(binding_path).status, 404);
}

TEST_F(GarbageCollectorTest, ChainOfDependentsGoesInOneSweep) {
  nlohmann::json job = CreateJob("team-a", "plan");
  nlohmann::json owner = CreateOwned("owner", {RefTo(job)});
  // Visited before its owner (objects are visited by name): it goes in a second pass.
  CreateOwned("dependent", {RefTo(owner)});
  ASSERT_EQ(Admin().Delete("/apis/batch/v1/namespaces/team-a/jobs/plan").status, 200);
  EXPECT_EQ(server_->CollectGarbage(), 2);
  EXPECT_EQ(GetSecret("owner").status, 404);
  EXPECT_EQ(GetSecret("dependent").status, 404);
}

TEST_F(GarbageCollectorTest, DeletionIsAWatchEventAndARequestOfTheCollector) {
  WatchReader watch(
      *server_, server_->admin_token(),
      absl::StrCat(kSecrets, "?watch=true&resourceVersion=", server_->resource_version()));
  nlohmann::json mirror = CreateOwned("mirror", {Ref("batch/v1", "Job", "plan", kNeverUid)});
  ASSERT_EQ(server_->CollectGarbage(), 1);
  std::vector<nlohmann::json> events = watch.WaitForEvents(2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1]["type"], "DELETED");
  EXPECT_EQ(events[1]["object"]["metadata"]["uid"], mirror["metadata"]["uid"]);
  EXPECT_EQ(events[1]["object"]["metadata"]["resourceVersion"],
            absl::StrCat(server_->resource_version()));
  EXPECT_THAT(CollectorRequests(), ElementsAre("delete secrets 200 x1"));
}

TEST_F(GarbageCollectorTest, DependentWithFinalizersIsMarkedOnceAndGoesWithItsLastFinalizer) {
  CreateOwned("mirror", {Ref("batch/v1", "Job", "plan", kNeverUid)}, {"example.com/hold"});
  EXPECT_EQ(server_->CollectGarbage(), 1);
  Reply marked = GetSecret("mirror");
  ASSERT_EQ(marked.status, 200);
  EXPECT_TRUE(marked.body["metadata"].contains("deletionTimestamp"));
  EXPECT_EQ(server_->CollectGarbage(), 0) << "an object being deleted is left alone";
  EXPECT_THAT(CollectorRequests(), ElementsAre("delete secrets 200 x1"));
  nlohmann::json released = marked.body;
  released["metadata"]["finalizers"] = nlohmann::json::array();
  ASSERT_EQ(Admin().Put(absl::StrCat(kSecrets, "/mirror"), released).status, 200);
  EXPECT_EQ(GetSecret("mirror").status, 404);
}

class BackgroundGarbageCollectorTest : public GarbageCollectorTest {
 protected:
  ApiServerOptions Options() override {
    ApiServerOptions options = ApiServerTest::Options();
    options.garbage_collection_period = absl::Seconds(2);
    return options;
  }
};

TEST_F(BackgroundGarbageCollectorTest, SweepsEveryPeriodOfTheServersClock) {
  ASSERT_TRUE(kubebridge::AwaitSleepers(clock_, 1)) << "the collector waits on the clock";
  WatchReader watch(
      *server_, server_->admin_token(),
      absl::StrCat(kSecrets, "?watch=true&resourceVersion=", server_->resource_version()));
  CreateOwned("mirror", {Ref("batch/v1", "Job", "plan", kNeverUid)});
  ASSERT_EQ(watch.WaitForEvents(1).size(), 1u);
  clock_.Advance(absl::Seconds(1));
  EXPECT_EQ(GetSecret("mirror").status, 200) << "the period has not passed";
  clock_.Advance(absl::Seconds(1));
  std::vector<nlohmann::json> events = watch.WaitForEvents(2, absl::Seconds(20));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1]["type"], "DELETED");
}

TEST_F(GarbageCollectorTest, ZeroPeriodCollectsNothingInTheBackground) {
  CreateOwned("mirror", {Ref("batch/v1", "Job", "plan", kNeverUid)});
  clock_.Advance(absl::Hours(24));
  EXPECT_EQ(GetSecret("mirror").status, 200);
  EXPECT_EQ(clock_.Sleepers(), 0) << "no collector waits on the clock";
  EXPECT_EQ(server_->CollectGarbage(), 1) << "an explicit sweep still collects";
}

TEST(GarbageCollectorOptionsTest, NegativePeriodIsRefused) {
  TempDir dir;
  ApiServerOptions options;
  options.state_dir = dir.path() / "state";
  options.garbage_collection_period = absl::Seconds(-1);
  EXPECT_THAT(ApiServer::Start(options),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("garbage collection period -1s is negative; 0 turns garbage "
                                 "collection off")));
}

// The executable's --garbage-collection-period flag.
class GarbageCollectionFlagTest : public ::testing::Test {
 protected:
  std::filesystem::path StateDir() const { return dir_.path() / "state"; }
  // Runs the server binary with `period` as its flag value, expecting it to refuse to start.
  RunResult RunRefused(const std::string& period) {
    // Qualified: inside a test fixture, plain Run is ::testing::Test::Run.
    absl::StatusOr<RunResult> result = ::credledger::testing::Run(
        {CREDLEDGER_TEST_APISERVER_BINARY, "--state-dir=" + StateDir().string(),
         "--garbage-collection-period=" + period},
        absl::Seconds(20));
    EXPECT_TRUE(result.ok()) << result.status();
    return result.ok() ? *result : RunResult{};
  }
  std::string ReadState(const std::string& file) const {
    std::ifstream in(StateDir() / file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  TempDir dir_;
};

TEST_F(GarbageCollectionFlagTest, ValueThatIsNotADurationIsRefused) {
  RunResult result = RunRefused("soon");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("garbage_collection_period")) << result.err;
}

TEST_F(GarbageCollectionFlagTest, NegativeValueIsRefused) {
  RunResult result = RunRefused("-1s");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("garbage collection period -1s is negative")) << result.err;
}

TEST_F(GarbageCollectionFlagTest, ServerCollectsEveryPeriodTheFlagSets) {
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<Subprocess> child,
      Subprocess::Start({CREDLEDGER_TEST_APISERVER_BINARY, "--state-dir=" + StateDir().string(),
                         "--namespaces=team-a", "--garbage-collection-period=50ms"}));
  absl::StatusOr<std::string> ready =
      child->WaitForLine("listening on", absl::Now() + absl::Seconds(20));
  ASSERT_TRUE(ready.ok()) << ready.status() << child->err();
  const std::string after_host = ready->substr(ready->find("127.0.0.1:") + 10);
  int port = 0;
  ASSERT_TRUE(absl::SimpleAtoi(after_host.substr(0, after_host.find(' ')), &port)) << *ready;
  std::string token = ReadState("admin-token");
  token.erase(token.find_last_not_of('\n') + 1);
  httplib::SSLClient client("127.0.0.1", port);
  client.set_ca_cert_path((StateDir() / "ca.crt").string());
  client.enable_server_certificate_verification(true);
  client.set_read_timeout(30);
  const httplib::Headers auth = {{"Authorization", "Bearer " + token}};
  nlohmann::json orphan = {
      {"apiVersion", "v1"},
      {"kind", "Secret"},
      {"metadata",
       {{"name", "mirror"},
        {"ownerReferences", nlohmann::json::array({Ref("batch/v1", "Job", "plan", kNeverUid)})}}}};
  httplib::Result created = client.Post(kSecrets, auth, orphan.dump(), "application/json");
  ASSERT_TRUE(created) << httplib::to_string(created.error());
  ASSERT_EQ(created->status, 201) << created->body;
  // The watch ends at its timeout unless the deletion arrives first.
  const nlohmann::json created_body = nlohmann::json::parse(created->body, nullptr, false);
  const std::string rv = StringField(Metadata(created_body), "resourceVersion");
  std::string stream;
  client.Get(absl::StrCat(kSecrets, "?watch=true&timeoutSeconds=20&resourceVersion=", rv), auth,
             [&](const char* data, size_t length) {
               stream.append(data, length);
               return stream.find("\"type\":\"DELETED\"") == std::string::npos;
             });
  EXPECT_THAT(stream, HasSubstr("\"type\":\"DELETED\"")) << stream;
  child->Signal(SIGTERM);
  absl::StatusOr<int> exit_code = child->Wait(absl::Now() + absl::Seconds(20));
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  EXPECT_EQ(*exit_code, 0) << child->err();
}

}  // namespace garbage_collector_test
}  // namespace credledger::kubeapi::testing
