// WatchTargets, restart, shutdown, health checking and reflection of a real Server over a
// real gRPC channel.
#include <grpcpp/generic/generic_stub.h>

#include <string>

#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "test/integration/api_fixture.h"

namespace credledger::testing {
namespace target_watch_integration_test {

using ::testing::HasSubstr;
using Kind = v1::WatchTargetsResponse;

class TargetWatchIntegrationTest : public ApiFixture {
 protected:
  struct Watch {
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientReader<v1::WatchTargetsResponse>> reader;
  };

  std::unique_ptr<Watch> StartWatch(int64_t after_seq, const std::string& ns = "") {
    auto watch = std::make_unique<Watch>();
    watch->context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
    v1::WatchTargetsRequest request;
    request.set_after_seq(after_seq);
    request.set_namespace_(ns);
    watch->reader = stub_->WatchTargets(&watch->context, request);
    return watch;
  }

  // Reads items until one has seq >= `seq`; returns all read. Fails the test at stream end.
  std::vector<v1::WatchTargetsResponse> ReadThrough(Watch& watch, int64_t seq) {
    std::vector<v1::WatchTargetsResponse> items;
    v1::WatchTargetsResponse item;
    while (watch.reader->Read(&item)) {
      items.push_back(item);
      if (item.kind() == Kind::KIND_CHANGE && item.seq() >= seq) return items;
    }
    ADD_FAILURE() << "watch ended: " << watch.reader->Finish().error_message();
    return items;
  }

  // Cancels the watch and finishes the call; returns its status.
  grpc::Status Cancel(Watch& watch) {
    watch.context.TryCancel();
    v1::WatchTargetsResponse item;
    while (watch.reader->Read(&item)) {
    }
    return watch.reader->Finish();
  }

  // Reads the snapshot through its end marker.
  std::vector<v1::WatchTargetsResponse> ReadSnapshot(Watch& watch) {
    std::vector<v1::WatchTargetsResponse> items;
    v1::WatchTargetsResponse item;
    while (watch.reader->Read(&item)) {
      items.push_back(item);
      if (item.kind() == Kind::KIND_SNAPSHOT_END) return items;
    }
    ADD_FAILURE() << "watch ended before the snapshot end";
    return items;
  }
};

TEST_F(TargetWatchIntegrationTest, SnapshotThenLiveChangesThenResumeAfterASeq) {
  Register("demo", "edge-1", "req-1");
  const int64_t snapshot_seq = HeadSeq();
  auto watch = StartWatch(0);
  std::vector<v1::WatchTargetsResponse> snapshot = ReadSnapshot(*watch);
  ASSERT_EQ(snapshot.size(), 2u);
  EXPECT_EQ(snapshot[0].kind(), Kind::KIND_SNAPSHOT);
  EXPECT_EQ(snapshot[0].target().name(), "edge-1");
  EXPECT_EQ(snapshot[0].seq(), snapshot_seq);
  EXPECT_FALSE(snapshot[1].has_target());
  EXPECT_EQ(snapshot[1].seq(), snapshot_seq);

  v1::RegisterTargetResponse second = Register("demo", "edge-2", "req-2");
  std::vector<v1::WatchTargetsResponse> live = ReadThrough(*watch, second.seq());
  ASSERT_FALSE(live.empty());
  for (const auto& item : live) {
    EXPECT_EQ(item.kind(), Kind::KIND_CHANGE);
    EXPECT_EQ(item.target().name(), "edge-2");
    EXPECT_GT(item.seq(), snapshot_seq);
  }
  EXPECT_EQ(live.back().seq(), second.seq());
  EXPECT_EQ(live.back().target().open_mint_attempt_id(), "m1");
  EXPECT_EQ(Cancel(*watch).error_code(), grpc::StatusCode::CANCELLED);

  // Resuming after the snapshot: no snapshot, the same changes in the same order.
  auto resumed = StartWatch(snapshot_seq);
  std::vector<v1::WatchTargetsResponse> replayed = ReadThrough(*resumed, second.seq());
  ASSERT_EQ(replayed.size(), live.size());
  for (size_t i = 0; i < live.size(); ++i) {
    EXPECT_EQ(replayed[i].kind(), Kind::KIND_CHANGE);
    EXPECT_EQ(replayed[i].seq(), live[i].seq());
  }
  Cancel(*resumed);
}

TEST_F(TargetWatchIntegrationTest, NamespaceFilterLeavesOtherNamespacesOut) {
  Register("other", "edge-0", "req-0");
  auto watch = StartWatch(0, "demo");
  std::vector<v1::WatchTargetsResponse> snapshot = ReadSnapshot(*watch);
  ASSERT_EQ(snapshot.size(), 1u);  // only the end marker
  Register("other", "edge-1", "req-1");
  v1::RegisterTargetResponse mine = Register("demo", "edge-2", "req-2");
  for (const auto& item : ReadThrough(*watch, mine.seq())) {
    EXPECT_EQ(item.target().namespace_(), "demo");
  }
  EXPECT_EQ(Cancel(*watch).error_code(), grpc::StatusCode::CANCELLED);
}

TEST_F(TargetWatchIntegrationTest, ResumingBeforeTheServerStartedIsResourceExhausted) {
  Register("demo", "edge-1", "req-1");
  RestartServer();
  auto watch = StartWatch(1);
  v1::WatchTargetsResponse item;
  EXPECT_FALSE(watch->reader->Read(&item));
  grpc::Status status = watch->reader->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("list again"));

  // The log survived the restart.
  v1::GetTargetRequest get;
  get.set_namespace_("demo");
  get.set_name("edge-1");
  v1::GetTargetResponse got;
  EXPECT_TRUE(Call(&v1::TargetService::Stub::GetTarget, get, &got).ok());
}

TEST_F(TargetWatchIntegrationTest, ShutdownEndsARunningWatchWithUnavailable) {
  auto watch = StartWatch(0);
  ReadSnapshot(*watch);
  const absl::Time start = absl::Now();
  server_->Shutdown();
  EXPECT_LT(absl::Now() - start, absl::Seconds(4));  // well inside the 5 s grace period
  v1::WatchTargetsResponse item;
  EXPECT_FALSE(watch->reader->Read(&item));
  EXPECT_EQ(watch->reader->Finish().error_code(), grpc::StatusCode::UNAVAILABLE);
}

// A second server on an address in use fails to start rather than share the port.
TEST_F(TargetWatchIntegrationTest, ASecondServerOnTheSameAddressFailsToStart) {
  service::ServeOptions options;
  options.log.db_path = dir_.path() / "second.db";
  options.grpc.listen_address = absl::StrCat("127.0.0.1:", server_->port());
  options.grpc.insecure_allow_all = true;
  EXPECT_THAT(service::Server::Start(options).status(),
              StatusIs(absl::StatusCode::kUnavailable,
                       HasSubstr("is another server using that address?")));
}

// Without a policy and without --insecure-allow-all, health checking and reflection are all
// that answer (docs/api.md, "Authorization").
TEST_F(TargetWatchIntegrationTest, WithoutAPolicyOnlyHealthCheckAndReflectionAreServed) {
  RestartWithoutPolicy();
  v1::ListTargetsResponse listed_targets;
  const grpc::Status refused =
      Call(&v1::TargetService::Stub::ListTargets, v1::ListTargetsRequest(), &listed_targets);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(refused.error_message(), HasSubstr("runs without --authorization-policy"));
  grpc::GenericStub generic(channel_);
  // grpc.health.v1.HealthCheckRequest{service: "credledger.v1.TargetService"}: field 1, bytes.
  const std::string service = "credledger.v1.TargetService";
  const std::string check = std::string("\x0a", 1) + static_cast<char>(service.size()) + service;
  grpc::Slice slice(check);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  absl::Notification done;
  grpc::Status status;
  generic.UnaryCall(&context, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &request,
                    &response, [&](grpc::Status s) {
                      status = std::move(s);
                      done.Notify();
                    });
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(15)));
  ASSERT_TRUE(status.ok()) << status.error_message();
  grpc::Slice answer;
  ASSERT_TRUE(response.DumpToSingleSlice(&answer).ok());
  // HealthCheckResponse{status: SERVING (1)}.
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(answer.begin()), answer.size()),
            std::string("\x08\x01", 2));

  // ServerReflectionRequest{list_services: ""} (field 7) lists the API service.
  grpc::CompletionQueue cq;
  grpc::ClientContext reflection_context;
  reflection_context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  auto call = generic.PrepareCall(
      &reflection_context, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", &cq);
  void* tag = nullptr;
  bool ok = false;
  auto step = [&](int expected) {
    ASSERT_EQ(cq.AsyncNext(&tag, &ok, absl::ToChronoTime(absl::Now() + absl::Seconds(10))),
              grpc::CompletionQueue::GOT_EVENT);
    EXPECT_EQ(tag, reinterpret_cast<void*>(expected));
    EXPECT_TRUE(ok);
  };
  call->StartCall(reinterpret_cast<void*>(1));
  step(1);
  grpc::Slice list(std::string("\x3a\x00", 2));
  grpc::ByteBuffer list_request(&list, 1);
  call->Write(list_request, reinterpret_cast<void*>(2));
  step(2);
  grpc::ByteBuffer list_response;
  call->Read(&list_response, reinterpret_cast<void*>(3));
  step(3);
  grpc::Slice listed;
  ASSERT_TRUE(list_response.DumpToSingleSlice(&listed).ok());
  EXPECT_THAT(std::string(reinterpret_cast<const char*>(listed.begin()), listed.size()),
              HasSubstr("credledger.v1.TargetService"));
  reflection_context.TryCancel();
  grpc::Status finish;
  call->Finish(&finish, reinterpret_cast<void*>(4));
  ASSERT_EQ(cq.AsyncNext(&tag, &ok, absl::ToChronoTime(absl::Now() + absl::Seconds(10))),
            grpc::CompletionQueue::GOT_EVENT);
  cq.Shutdown();
  while (cq.Next(&tag, &ok)) {
  }
}

}  // namespace target_watch_integration_test
}  // namespace credledger::testing
