// The gRPC API over a full disk, where writes fail with UNAVAILABLE, reads and exports keep
// working, and the service recovers when space returns (docs/architecture.md, "Faults"): a real
// server on loopback whose log lies on a FaultyVfs, made SQLite's default VFS for the test so
// that the server opens its log through it unchanged.
#include <grpcpp/grpcpp.h>

#include "credledger/v1/api.grpc.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/integration/api_fixture.h"
#include "test/support/faulty_vfs.h"

namespace credledger::testing {
namespace disk_full_api_test {

using ::testing::HasSubstr;
using Stub = v1::TargetService::Stub;

class DiskFullApiTest : public ApiFixture {
 protected:
  DiskFullApiTest() : vfs_("credledger-test-api-faulty", /*make_default=*/true) {}

  void TearDown() override {
    ApiFixture::TearDown();
    server_.reset();  // closes the log before the VFS under it is unregistered
  }

  v1::RegisterTargetRequest RegisterRequest(const std::string& name,
                                            const std::string& request_id) {
    v1::RegisterTargetRequest request;
    request.set_namespace_("demo");
    request.set_name(name);
    request.set_request_id(request_id);
    return request;
  }

  FaultyVfs vfs_;
};

TEST_F(DiskFullApiTest, AWriteOnAFullDiskIsUnavailableReadsAnswerAndWritesResumeWithSpace) {
  Register("demo", "edge-1", "req-1");
  const int64_t head = HeadSeq();
  vfs_.SetSpaceLimit(vfs_.UsedBytes());

  v1::RegisterTargetResponse response;
  grpc::Status status =
      Call(&Stub::RegisterTarget, RegisterRequest("edge-2", "req-2"), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("database or disk is full"));
  EXPECT_EQ(HeadSeq(), head);
  EXPECT_GT(vfs_.refused_writes(), 0);

  v1::GetTargetRequest get;
  get.set_namespace_("demo");
  get.set_name("edge-1");
  v1::GetTargetResponse got;
  status = Call(&Stub::GetTarget, get, &got);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(got.target().name(), "edge-1");
  // A read served from the log itself rather than from a projection.
  auto audit = v1::AuditService::NewStub(channel_);
  v1::TimelineRequest timeline;
  timeline.set_namespace_("demo");
  timeline.set_name("edge-1");
  v1::TimelineResponse history;
  grpc::ClientContext context;
  context.AddMetadata("credledger-actor", "auditor");
  status = audit->Timeline(&context, timeline, &history);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_GT(history.entries_size(), 0);

  vfs_.LiftSpaceLimit();
  status = Call(&Stub::RegisterTarget, RegisterRequest("edge-2", "req-2"), &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_FALSE(response.replayed());
  EXPECT_EQ(response.target().name(), "edge-2");
  EXPECT_GT(HeadSeq(), head);
}

}  // namespace disk_full_api_test
}  // namespace credledger::testing
