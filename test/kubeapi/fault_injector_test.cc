// Tests of the fault injection seam: error replies with Retry-After, 409 Conflict, limited
// firings, exact paths, delays, requests held unanswered (before or after serving) and watch
// streams cut short.
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "test/kubeapi/test_support.h"

namespace credledger::kubeapi::testing {
namespace fault_injector_test {

using FaultInjectorTest = ApiServerTest;

TEST_F(FaultInjectorTest, ErrorFaultAnswersStatusWithRetryAfterForItsFiringsOnly) {
  Fault fault;
  fault.method = "GET";
  fault.path_prefix = "/api/v1/namespaces/default/secrets";
  fault.status_code = 429;
  fault.retry_after_seconds = 3;
  fault.times = 1;
  server_->faults().Add(fault);
  Reply throttled = Admin().Get("/api/v1/namespaces/default/secrets");
  EXPECT_EQ(throttled.status, 429);
  EXPECT_EQ(throttled.body["reason"], "TooManyRequests");
  EXPECT_EQ(throttled.body["details"]["retryAfterSeconds"], 3);
  auto retry_after = throttled.headers.find("Retry-After");
  ASSERT_NE(retry_after, throttled.headers.end());
  EXPECT_EQ(retry_after->second, "3");
  EXPECT_EQ(Admin().Get("/api/v1/namespaces/default/secrets").status, 200);
  EXPECT_EQ(server_->faults().fired(), 1);
}

TEST_F(FaultInjectorTest, FaultMatchesMethodAndPathPrefix) {
  Fault fault;
  fault.method = "POST";
  fault.path_prefix = "/api/v1/namespaces/default";
  fault.status_code = 503;
  server_->faults().Add(fault);
  EXPECT_EQ(Admin().Get("/api/v1/namespaces/default/secrets").status, 200);
  EXPECT_EQ(Admin().Get("/api/v1/namespaces/kube-system/secrets").status, 200);
  Reply reply = Admin().Post("/api/v1/namespaces/default/configmaps",
                             {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "c"}}}});
  EXPECT_EQ(reply.status, 503);
  EXPECT_EQ(reply.body["reason"], "ServiceUnavailable");
  server_->faults().Clear();
  EXPECT_EQ(Admin().Post("/api/v1/namespaces/default/configmaps",
                         {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "c"}}}})
                .status,
            201);
}

TEST_F(FaultInjectorTest, ExactPathFaultSparesThePathsBelowIt) {
  Fault fault;
  fault.method = "GET";
  fault.path_prefix = "/api/v1/namespaces";
  fault.exact_path = true;
  fault.status_code = 503;
  server_->faults().Add(fault);
  EXPECT_EQ(Admin().Get("/api/v1/namespaces").status, 503);
  EXPECT_EQ(Admin().Get("/api/v1/namespaces?watch=1&timeoutSeconds=1").status, 503);
  EXPECT_EQ(Admin().Get("/api/v1/namespaces/default").status, 200);
  EXPECT_EQ(Admin().Get("/api/v1/namespaces/default/secrets").status, 200);
  EXPECT_EQ(server_->faults().fired(), 2);
}

TEST_F(FaultInjectorTest, DelayFaultDelaysThenServes) {
  Fault fault;
  fault.path_prefix = "/version";
  fault.delay = absl::Milliseconds(300);
  fault.times = 1;
  server_->faults().Add(fault);
  absl::Time start = absl::Now();
  EXPECT_EQ(As("").Get("/version").status, 200);
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(300));
}

TEST_F(FaultInjectorTest, ConflictFaultAnswersAsAStaleUpdateAndChangesNothing) {
  nlohmann::json created = CreateSecret("default", "db-password");
  const std::string path = "/api/v1/namespaces/default/secrets/db-password";
  Fault fault;
  fault.method = "PUT";
  fault.path_prefix = path;
  fault.status_code = 409;
  fault.times = 1;
  server_->faults().Add(fault);
  nlohmann::json changed = created;
  changed["data"] = {{"k", "dg=="}};
  Reply conflict = Admin().Put(path, changed);
  EXPECT_EQ(conflict.status, 409);
  EXPECT_TRUE(MatchesFixture(conflict.body, "status_409_stale_update.json"));
  Reply unchanged = Admin().Get(path);
  EXPECT_EQ(unchanged.body["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"]);
  EXPECT_FALSE(unchanged.body.contains("data"));
  EXPECT_EQ(Admin().Put(path, changed).status, 200);  // the same write, once the fault is spent
}

TEST_F(FaultInjectorTest, ConflictFaultOnACreateNamesTheObjectOfTheBody) {
  Fault fault;
  fault.method = "POST";
  fault.path_prefix = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles";
  fault.status_code = 409;
  server_->faults().Add(fault);
  Reply reply = Admin().Post(fault.path_prefix, {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                                                 {"kind", "Role"},
                                                 {"metadata", {{"name", "agent"}}}});
  EXPECT_EQ(reply.status, 409);
  EXPECT_EQ(reply.body["reason"], "Conflict");
  EXPECT_EQ(reply.body["message"],
            "Operation cannot be fulfilled on roles.rbac.authorization.k8s.io \"agent\": the "
            "object has been modified; please apply your changes to the latest version and "
            "try again");
  EXPECT_EQ(reply.body["details"],
            nlohmann::json({{"name", "agent"},
                            {"group", "rbac.authorization.k8s.io"},
                            {"kind", "roles"}}));
}

TEST_F(FaultInjectorTest, RequestHeldBeforeServingIsNeverServedAndFreedWhenTheClientGivesUp) {
  Fault fault;
  fault.method = "POST";
  fault.path_prefix = "/api/v1/namespaces/default/secrets";
  fault.hang = Hang::kBeforeServing;
  fault.times = 1;
  server_->faults().Add(fault);
  Client client = Admin();
  client.SetReadTimeout(absl::Milliseconds(300));
  const absl::Time start = absl::Now();
  Reply reply = client.Post(fault.path_prefix, {{"apiVersion", "v1"},
                                                {"kind", "Secret"},
                                                {"metadata", {{"name", "held"}}}});
  EXPECT_EQ(reply.status, 0) << "no answer: the client gave up";
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(300));
  EXPECT_TRUE(server_->faults().AwaitHeld(0, absl::Seconds(5))) << "the worker is freed";
  EXPECT_EQ(Admin().Get(fault.path_prefix + "/held").status, 404);
  EXPECT_EQ(server_->faults().fired(), 1);
}

TEST_F(FaultInjectorTest, RequestHeldAfterServingTakesEffectButGetsNoAnswer) {
  Fault fault;
  fault.method = "POST";
  fault.path_prefix = "/api/v1/namespaces/default/secrets";
  fault.hang = Hang::kAfterServing;
  fault.times = 1;
  server_->faults().Add(fault);
  const nlohmann::json secret = {
      {"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", {{"name", "lost-answer"}}}};
  Client client = Admin();
  client.SetReadTimeout(absl::Milliseconds(300));
  EXPECT_EQ(client.Post(fault.path_prefix, secret).status, 0);
  EXPECT_EQ(Admin().Get(fault.path_prefix + "/lost-answer").status, 200);
  // A client retrying the create meets what the first one did.
  Reply retried = Admin().Post(fault.path_prefix, secret);
  EXPECT_EQ(retried.status, 409);
  EXPECT_EQ(retried.body["reason"], "AlreadyExists");
  EXPECT_TRUE(server_->faults().AwaitHeld(0, absl::Seconds(5)));
}

TEST_F(FaultInjectorTest, StopEndsHeldRequestsPromptly) {
  Fault fault;
  fault.path_prefix = "/api/v1/namespaces/default/configmaps";
  fault.hang = Hang::kBeforeServing;
  server_->faults().Add(fault);
  Reply reply;
  reply.status = -1;
  std::thread caller([&] { reply = Admin().Get(fault.path_prefix); });  // waits up to 30 s
  ASSERT_TRUE(server_->faults().AwaitHeld(1, absl::Seconds(10)));
  const absl::Time before = absl::Now();
  server_->Stop();
  caller.join();
  EXPECT_LT(absl::Now() - before, absl::Seconds(2));
  EXPECT_EQ(reply.status, 0);
  EXPECT_EQ(server_->faults().held(), 0);
}

TEST_F(FaultInjectorTest, DropFaultCutsAWatchAfterItsEventsAndLeavesListsAlone) {
  const std::string path = "/api/v1/namespaces/default/secrets";
  for (const char* name : {"a", "b", "c"}) CreateSecret("default", name);
  Fault fault;
  fault.method = "GET";
  fault.path_prefix = path;
  fault.drop_watch_after_events = 2;
  fault.times = 1;
  server_->faults().Add(fault);
  EXPECT_EQ(Admin().Get(path).status, 200);
  EXPECT_EQ(server_->faults().fired(), 0) << "a list is not a watch";

  WatchReader cut(*server_, server_->admin_token(), path + "?watch=true");  // 3 initial ADDED
  ASSERT_TRUE(cut.WaitForEnd());
  EXPECT_EQ(cut.status(), 200);
  std::vector<nlohmann::json> events = cut.events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["object"]["metadata"]["name"], "a");
  EXPECT_EQ(events[1]["object"]["metadata"]["name"], "b");
  EXPECT_FALSE(cut.complete()) << "cut, not ended";
  EXPECT_EQ(server_->faults().fired(), 1);

  WatchReader whole(*server_, server_->admin_token(), path + "?watch=true");
  EXPECT_EQ(whole.WaitForEvents(3).size(), 3u);
}

TEST_F(FaultInjectorTest, DropFaultWithoutEventsSendsOnlyTheHeaders) {
  CreateSecret("default", "a");
  Fault fault;
  fault.path_prefix = "/api/v1/namespaces/default/secrets";
  fault.drop_watch_after_events = 0;
  server_->faults().Add(fault);
  WatchReader cut(*server_, server_->admin_token(),
                  absl::StrCat(fault.path_prefix, "?watch=true&resourceVersion=0"));
  ASSERT_TRUE(cut.WaitForEnd());
  EXPECT_EQ(cut.status(), 200);
  EXPECT_TRUE(cut.events().empty());
  EXPECT_FALSE(cut.complete());
}

}  // namespace fault_injector_test
}  // namespace credledger::kubeapi::testing
