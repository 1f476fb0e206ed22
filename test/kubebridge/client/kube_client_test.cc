#include "kubebridge/client/kube_client.h"

#include <memory>
#include <thread>

#include "absl/strings/match.h"
#include "common/clock.h"
#include "gtest/gtest.h"
#include "kubebridge/client/status_mapping.h"
#include "test/kubebridge/await_sleepers.h"
#include "test/kubebridge/fake_transport.h"
#include "test/support/status_matchers.h"

namespace credledger::kubebridge {
namespace kube_client_test {

const ResourceRef kSecrets{.version = "v1", .resource = "secrets", .namespace_name = "a"};

class KubeClientTest : public ::testing::Test {
 protected:
  static KubeClientOptions Options() {
    KubeClientOptions options;
    options.retry.initial_delay = absl::Milliseconds(100);
    options.retry.multiplier = 2;
    options.retry.jitter = 0;
    options.retry.max_attempts = 4;
    return options;
  }

  nlohmann::json RequestBody(size_t i) {
    return nlohmann::json::parse(transport_->requests().at(i).body);
  }

  StepClock clock_;
  FakeClient fake_ = MakeFakeClient(&clock_, Options());
  FakeTransport* transport_ = fake_.transport;
  std::unique_ptr<KubeClient>& client_ = fake_.client;
};

TEST_F(KubeClientTest, GetReadsTheObjectPath) {
  transport_->Push(FakeReply::Json(200, {{"metadata", {{"name", "x"}}}}));
  ASSERT_OK_AND_ASSIGN(nlohmann::json object, client_->Get(kSecrets.WithName("x")));
  EXPECT_EQ(object["metadata"]["name"], "x");
  ASSERT_EQ(transport_->requests().size(), 1u);
  EXPECT_EQ(transport_->requests()[0].method, "GET");
  EXPECT_EQ(transport_->requests()[0].path, "/api/v1/namespaces/a/secrets/x");
}

TEST_F(KubeClientTest, CreatePostsToTheCollectionAndFillsTheName) {
  transport_->Push(FakeReply::Json(201, {{"metadata", {{"name", "x"}, {"uid", "u1"}}}}));
  ASSERT_OK_AND_ASSIGN(nlohmann::json created,
                       client_->Create(kSecrets.WithName("x"), {{"kind", "Secret"}}));
  EXPECT_EQ(created["metadata"]["uid"], "u1");
  EXPECT_EQ(transport_->requests()[0].method, "POST");
  EXPECT_EQ(transport_->requests()[0].path, "/api/v1/namespaces/a/secrets");
  EXPECT_EQ(RequestBody(0)["metadata"]["name"], "x");
}

TEST_F(KubeClientTest, CreateRejectsAnObjectNamedDifferentlyFromTheReference) {
  absl::StatusOr<nlohmann::json> created =
      client_->Create(kSecrets.WithName("x"), {{"metadata", {{"name", "y"}}}});
  EXPECT_EQ(created.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(transport_->requests().empty());
}

TEST_F(KubeClientTest, AlreadyExistsIsReportedWithTheServersReasonAndNotRetried) {
  transport_->Push(FakeReply::Status(409, "AlreadyExists", "secrets \"x\" already exists"));
  absl::StatusOr<nlohmann::json> created =
      client_->Create(kSecrets, {{"metadata", {{"name", "x"}}}});
  EXPECT_EQ(created.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(created.status().message(),
            "POST /api/v1/namespaces/a/secrets: AlreadyExists: secrets \"x\" already exists");
  EXPECT_EQ(transport_->requests().size(), 1u);
}

TEST_F(KubeClientTest, UpdateRequiresAResourceVersion) {
  absl::StatusOr<nlohmann::json> updated =
      client_->Update(kSecrets, {{"metadata", {{"name", "x"}}}});
  EXPECT_EQ(updated.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(updated.status().message(),
            "PUT /api/v1/namespaces/a/secrets/x: metadata.resourceVersion is required for an "
            "update");
  EXPECT_TRUE(transport_->requests().empty());
}

TEST_F(KubeClientTest, UpdatePutsToTheObjectPathAndConflictIsAborted) {
  transport_->Push(FakeReply::Status(409, "Conflict", "the object has been modified"));
  absl::StatusOr<nlohmann::json> updated =
      client_->Update(kSecrets, {{"metadata", {{"name", "x"}, {"resourceVersion", "7"}}}});
  EXPECT_EQ(updated.status().code(), absl::StatusCode::kAborted);
  EXPECT_EQ(transport_->requests()[0].method, "PUT");
  EXPECT_EQ(transport_->requests()[0].path, "/api/v1/namespaces/a/secrets/x");
  EXPECT_EQ(RequestBody(0)["metadata"]["resourceVersion"], "7");
}

TEST_F(KubeClientTest, DeleteSendsPreconditionsAndReportsNotFound) {
  transport_->Push(FakeReply::Status(404, "NotFound", "secrets \"x\" not found"));
  absl::Status status = client_->Delete(kSecrets.WithName("x"), {.precondition_uid = "u1"});
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(transport_->requests()[0].method, "DELETE");
  nlohmann::json body = RequestBody(0);
  EXPECT_EQ(body["kind"], "DeleteOptions");
  EXPECT_EQ(body["preconditions"]["uid"], "u1");
}

TEST_F(KubeClientTest, PlainDeleteSendsNoBody) {
  transport_->Push(FakeReply::Json(200, {{"kind", "Status"}, {"status", "Success"}}));
  EXPECT_OK(client_->Delete(kSecrets.WithName("x")));
  EXPECT_TRUE(transport_->requests()[0].body.empty());
}

TEST_F(KubeClientTest, ListFollowsContinueTokensAndKeepsTheFirstResourceVersion) {
  transport_->Push(
      FakeReply::Json(200, {{"metadata", {{"resourceVersion", "10"}, {"continue", "c1"}}},
                            {"items", {{{"metadata", {{"name", "a"}}}}}}}));
  transport_->Push(FakeReply::Json(200, {{"metadata", {{"resourceVersion", "10"}}},
                                         {"items", {{{"metadata", {{"name", "b"}}}}}}}));
  ASSERT_OK_AND_ASSIGN(ObjectList list,
                       client_->List(kSecrets, {.label_selector = "app=x", .page_size = 1}));
  ASSERT_EQ(list.items.size(), 2u);
  EXPECT_EQ(list.items[1]["metadata"]["name"], "b");
  EXPECT_EQ(list.resource_version, "10");
  EXPECT_EQ(transport_->requests()[0].path,
            "/api/v1/namespaces/a/secrets?labelSelector=app%3Dx&limit=1");
  EXPECT_EQ(transport_->requests()[1].path,
            "/api/v1/namespaces/a/secrets?labelSelector=app%3Dx&limit=1&continue=c1");
}

TEST_F(KubeClientTest, EmptyListHasNoItems) {
  transport_->Push(
      FakeReply::Json(200, {{"metadata", {{"resourceVersion", "3"}}}, {"items", nullptr}}));
  ASSERT_OK_AND_ASSIGN(ObjectList list, client_->List(kSecrets));
  EXPECT_TRUE(list.items.empty());
  EXPECT_EQ(list.resource_version, "3");
}

TEST_F(KubeClientTest, TokenRequestGoesToTheSubresource) {
  transport_->Push(FakeReply::Json(201, {{"status", {{"token", "t"}}}}));
  ResourceRef sa{
      .version = "v1", .resource = "serviceaccounts", .namespace_name = "n", .name = "agent"};
  ASSERT_OK_AND_ASSIGN(nlohmann::json response,
                       client_->CreateSubresource(sa, "token", {{"kind", "TokenRequest"}}));
  EXPECT_EQ(response["status"]["token"], "t");
  EXPECT_EQ(transport_->requests()[0].path, "/api/v1/namespaces/n/serviceaccounts/agent/token");
}

TEST_F(KubeClientTest, RawGetReturnsTheBody) {
  transport_->Push(FakeReply::Json(200, {{"gitVersion", "v1.30.0"}}));
  ASSERT_OK_AND_ASSIGN(std::string body, client_->RawGet("/version"));
  EXPECT_EQ(nlohmann::json::parse(body)["gitVersion"], "v1.30.0");
  EXPECT_EQ(client_->RawGet("version").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(KubeClientTest, UnavailableIsRetriedWithExponentialBackoff) {
  transport_->Push(FakeReply::Status(503, "ServiceUnavailable", "busy"));
  transport_->Push(FakeReply::Error(absl::UnavailableError("GET /x: connection refused")));
  transport_->Push(FakeReply::Json(200, {{"metadata", {{"name", "x"}}}}));
  EXPECT_OK(client_->Get(kSecrets.WithName("x")).status());
  EXPECT_EQ(transport_->requests().size(), 3u);
  EXPECT_EQ(clock_.sleeps(),
            (std::vector<absl::Duration>{absl::Milliseconds(100), absl::Milliseconds(200)}));
}

TEST_F(KubeClientTest, RetriesAreBoundedByMaxAttempts) {
  for (int i = 0; i < 4; ++i) transport_->Push(FakeReply::Status(500, "InternalError", "boom"));
  absl::StatusOr<nlohmann::json> object = client_->Get(kSecrets.WithName("x"));
  EXPECT_EQ(object.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(object.status().message(), "GET /api/v1/namespaces/a/secrets/x: InternalError: boom");
  EXPECT_EQ(transport_->requests().size(), 4u);
  EXPECT_EQ(clock_.sleeps().size(), 3u);
}

TEST_F(KubeClientTest, RetryAfterHeaderOfA429IsHonoured) {
  FakeReply throttled = FakeReply::Status(429, "TooManyRequests", "slow down");
  throttled.retry_after = absl::Seconds(3);
  transport_->Push(throttled);
  transport_->Push(FakeReply::Json(200, nlohmann::json::object()));
  EXPECT_OK(client_->Get(kSecrets.WithName("x")).status());
  EXPECT_EQ(clock_.sleeps(), std::vector<absl::Duration>{absl::Seconds(3)});
}

TEST_F(KubeClientTest, RetryAfterSecondsInStatusDetailsIsHonoured) {
  transport_->Push(FakeReply::Json(429, {{"kind", "Status"},
                                         {"code", 429},
                                         {"reason", "TooManyRequests"},
                                         {"details", {{"retryAfterSeconds", 7}}}}));
  transport_->Push(FakeReply::Json(200, nlohmann::json::object()));
  EXPECT_OK(client_->Get(kSecrets.WithName("x")).status());
  EXPECT_EQ(clock_.sleeps(), std::vector<absl::Duration>{absl::Seconds(7)});
}

TEST_F(KubeClientTest, OtherErrorsAreNotRetried) {
  transport_->Push(FakeReply::Status(403, "Forbidden", "no"));
  EXPECT_EQ(client_->Get(kSecrets.WithName("x")).status().code(),
            absl::StatusCode::kPermissionDenied);
  transport_->Push(FakeReply::Status(401, "Unauthorized", "who"));
  EXPECT_EQ(client_->Get(kSecrets.WithName("x")).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(transport_->requests().size(), 2u);
  EXPECT_TRUE(clock_.sleeps().empty());
}

TEST_F(KubeClientTest, StoppedClientFailsFastWithoutSending) {
  client_->Stop();
  EXPECT_EQ(client_->Get(kSecrets.WithName("x")).status().code(), absl::StatusCode::kCancelled);
  EXPECT_TRUE(transport_->requests().empty());
}

TEST(KubeClientStopTest, StopInterruptsABackoffWait) {
  common::FakeClock clock;  // never advanced: the backoff would wait forever
  FakeClient fake = MakeFakeClient(&clock);
  fake.transport->Push(FakeReply::Status(503, "ServiceUnavailable", "busy"));
  absl::Status result;
  std::thread caller([&] { result = fake.client->Get(kSecrets.WithName("x")).status(); });
  EXPECT_TRUE(AwaitSleepers(clock, 1));
  fake.client->Stop();
  caller.join();
  EXPECT_EQ(result.code(), absl::StatusCode::kCancelled);
}

TEST_F(KubeClientTest, WatchOnceAsksForBookmarksAndDeliversEvents) {
  transport_->Push(FakeReply::Stream({
      R"({"type":"ADDED","object":{"metadata":{"name":"x","resourceVersion":"11"}}})",
      R"({"type":"MODIFIED","object":{"metadata":{"name":"x","resourceVersion":"12"}}})",
      R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"13"}}})",
      R"({"type":"DELETED","object":{"metadata":{"name":"x","resourceVersion":"14"}}})",
  }));
  std::vector<WatchEventType> types;
  EXPECT_OK(client_->WatchOnce(kSecrets, {.label_selector = "app=x", .resource_version = "10"},
                               [&](const WatchEvent& event) {
                                 types.push_back(event.type);
                                 return absl::OkStatus();
                               }));
  EXPECT_EQ(types,
            (std::vector<WatchEventType>{WatchEventType::kAdded, WatchEventType::kModified,
                                         WatchEventType::kBookmark, WatchEventType::kDeleted}));
  HttpRequest request = transport_->requests().at(0);
  EXPECT_EQ(request.path,
            "/api/v1/namespaces/a/secrets?watch=true&allowWatchBookmarks=true&"
            "resourceVersion=10&timeoutSeconds=300&labelSelector=app%3Dx");
  EXPECT_TRUE(request.stream);
}

TEST_F(KubeClientTest, WatchErrorEvent410IsResourceExpired) {
  transport_->Push(FakeReply::Stream({
      R"({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old"}})",
  }));
  absl::Status status = client_->WatchOnce(kSecrets, {.resource_version = "1"},
                                           [](const WatchEvent&) { return absl::OkStatus(); });
  EXPECT_TRUE(IsResourceExpired(status)) << status;
  EXPECT_EQ(status.message(), "GET /api/v1/namespaces/a/secrets: Expired: too old");
}

TEST_F(KubeClientTest, WatchHttp410IsResourceExpired) {
  transport_->Push(FakeReply::Status(410, "Gone", "gone"));
  absl::Status status = client_->WatchOnce(kSecrets, {.resource_version = "1"},
                                           [](const WatchEvent&) { return absl::OkStatus(); });
  EXPECT_TRUE(IsResourceExpired(status)) << status;
}

TEST_F(KubeClientTest, UndecodableWatchEventIsAnInternalError) {
  transport_->Push(FakeReply::Stream({"not json"}));
  absl::Status status =
      client_->WatchOnce(kSecrets, {}, [](const WatchEvent&) { return absl::OkStatus(); });
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
}

TEST_F(KubeClientTest, StopEndsABlockedWatch) {
  transport_->Push(FakeReply::Blocking());
  absl::Status result;
  std::thread watcher([&] {
    result = client_->WatchOnce(kSecrets, {}, [](const WatchEvent&) { return absl::OkStatus(); });
  });
  ASSERT_TRUE(transport_->AwaitRequests(1));
  client_->Stop();
  watcher.join();
  EXPECT_EQ(result.code(), absl::StatusCode::kCancelled);
}

// Metrics (docs/operations.md): every attempt is reported with its verb and status code, a
// transport failure as 0, and a cancelled attempt not at all.
class KubeClientObserverTest : public ::testing::Test {
 protected:
  using Call = std::pair<std::string, int>;

  KubeClientOptions Options() {
    KubeClientOptions options = KubeClientTestOptions();
    options.on_request = [this](absl::string_view verb, int code) {
      absl::MutexLock lock(&mu_);
      calls_.emplace_back(std::string(verb), code);
    };
    return options;
  }
  static KubeClientOptions KubeClientTestOptions() {
    KubeClientOptions options;
    options.retry.initial_delay = absl::Milliseconds(100);
    options.retry.jitter = 0;
    options.retry.max_attempts = 4;
    return options;
  }
  std::vector<Call> calls() {
    absl::MutexLock lock(&mu_);
    return calls_;
  }

  absl::Mutex mu_;
  std::vector<Call> calls_ ABSL_GUARDED_BY(mu_);
  StepClock clock_;
  FakeClient fake_ = MakeFakeClient(&clock_, Options());
};

TEST_F(KubeClientObserverTest, EachAttemptIsReportedWithItsVerbAndStatusCode) {
  FakeTransport& transport = *fake_.transport;
  KubeClient& client = *fake_.client;
  transport.Push(FakeReply::Status(503, "ServiceUnavailable", "busy"));
  transport.Push(FakeReply::Error(absl::UnavailableError("GET /x: connection refused")));
  transport.Push(FakeReply::Json(200, nlohmann::json::object()));
  ASSERT_OK(client.Get(kSecrets.WithName("x")).status());
  transport.Push(FakeReply::Status(409, "AlreadyExists", "exists"));
  EXPECT_FALSE(client.Create(kSecrets, {{"metadata", {{"name", "x"}}}}).ok());
  transport.Push(FakeReply::Json(200, {{"metadata", {{"name", "x"}}}}));
  ASSERT_OK(client.Update(kSecrets, {{"metadata", {{"name", "x"}, {"resourceVersion", "1"}}}})
                .status());
  transport.Push(FakeReply::Json(200, nlohmann::json::object()));
  ASSERT_OK(client.Delete(kSecrets.WithName("x")));
  transport.Push(FakeReply::Json(200, {{"items", nlohmann::json::array()}}));
  ASSERT_OK(client.List(kSecrets).status());
  transport.Push(FakeReply::Json(201, nlohmann::json::object()));
  ASSERT_OK(client.CreateSubresource(kSecrets.WithName("x"), "token", {}).status());
  transport.Push(FakeReply::Json(200, nlohmann::json::object()));
  ASSERT_OK(client.RawGet("/version").status());
  EXPECT_EQ(calls(), (std::vector<Call>{{"get", 503},
                                        {"get", 0},
                                        {"get", 200},
                                        {"create", 409},
                                        {"update", 200},
                                        {"delete", 200},
                                        {"list", 200},
                                        {"create", 201},
                                        {"get", 200}}));
}

TEST_F(KubeClientObserverTest, AWatchIsReportedWhenItsStreamEnds) {
  FakeTransport& transport = *fake_.transport;
  auto ignore = [](const WatchEvent&) { return absl::OkStatus(); };
  transport.Push(FakeReply::Stream({R"({"type":"BOOKMARK","object":{"metadata":{}}})"}));
  ASSERT_OK(fake_.client->WatchOnce(kSecrets, {}, ignore));
  // An undecodable line ends the stream with an error, but the server answered 200.
  transport.Push(FakeReply::Stream({"not json"}));
  EXPECT_FALSE(fake_.client->WatchOnce(kSecrets, {}, ignore).ok());
  transport.Push(FakeReply::Status(410, "Gone", "gone"));
  EXPECT_FALSE(fake_.client->WatchOnce(kSecrets, {}, ignore).ok());
  EXPECT_EQ(calls(), (std::vector<Call>{{"watch", 200}, {"watch", 200}, {"watch", 410}}));
}

TEST_F(KubeClientObserverTest, ACancelledAttemptIsNotReported) {
  fake_.transport->Push(FakeReply::Blocking());
  absl::Status result;
  std::thread watcher([&] {
    result = fake_.client->WatchOnce(kSecrets, {}, [](const WatchEvent&) {
      return absl::OkStatus();
    });
  });
  ASSERT_TRUE(fake_.transport->AwaitRequests(1));
  fake_.client->Stop();
  watcher.join();
  EXPECT_EQ(result.code(), absl::StatusCode::kCancelled);
  EXPECT_TRUE(calls().empty());
}

}  // namespace kube_client_test
}  // namespace credledger::kubebridge
