// The bad-input suite of the gRPC API (docs/api.md, "Bad input"): every row of the table in
// bad_input_rpc_rows.h is sent, as raw bytes, to a real Server (SQLite file, gRPC on
// 127.0.0.1 port 0). Each must be refused with its code, a message that starts with the
// field as the API names it and states the rule, no longer than kMaxBadInputMessageBytes
// (no huge input echoed), and nothing appended to the log. A completeness test walks the
// services of api.proto so that no RPC goes without rows.
//
// Requests that do not parse as the request message (truncated fields, a field number 0,
// invalid UTF-8 in a string field) never reach a handler: they are answered INVALID_ARGUMENT
// "request: the bytes do not parse ..." (unparsed_request_interceptor.h). The suite checks
// that answer and that nothing is appended.
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "credledger/v1/api.pb.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "test/integration/api_fixture.h"
#include "test/integration/bad_input_rpc_rows.h"

namespace credledger::testing {
namespace bad_input_api_test {

using ::testing::HasSubstr;

// Longest message a refusal may carry: it must not echo a huge input.
constexpr size_t kMaxBadInputMessageBytes = 1024;
// Deadline of one call; only reached when a call hangs.
constexpr absl::Duration kBadInputCallDeadline = absl::Seconds(20);
// The package of api.proto's services.
constexpr char kBadInputPackage[] = "credledger.v1";

// One call of any RPC with raw request bytes, unary or server-streaming alike: the request is
// written as the only message, then every response is read until the call ends. (A unary
// RPC accepts this framing too: it reads one message and answers once.)
class RawRpcCall : public grpc::ClientBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  // Calls `method` ("/credledger.v1.TargetService/RegisterTarget") with `bytes`.
  RawRpcCall(grpc::GenericStub& stub, const std::string& method, const std::string& bytes) {
    grpc::Slice slice(bytes);
    request_ = grpc::ByteBuffer(&slice, 1);
    context_.AddMetadata("credledger-actor", "bad-input-suite");
    context_.set_deadline(absl::ToChronoTime(absl::Now() + kBadInputCallDeadline));
    stub.PrepareBidiStreamingCall(&context_, method, grpc::StubOptions(), this);
    StartWriteLast(&request_, grpc::WriteOptions());
    StartRead(&response_);
    StartCall();
  }

  // Waits until the call ended; returns its status and sets `*responses` to the number of
  // responses received before it.
  grpc::Status Wait(int* responses) {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(&done_));
    *responses = responses_;
    return status_;
  }

 private:
  void OnReadDone(bool ok) override {
    if (!ok) return;
    {
      absl::MutexLock lock(&mu_);
      ++responses_;
    }
    StartRead(&response_);
  }
  void OnDone(const grpc::Status& status) override {
    absl::MutexLock lock(&mu_);
    status_ = status;
    done_ = true;
  }

  grpc::ClientContext context_;
  grpc::ByteBuffer request_;
  grpc::ByteBuffer response_;
  absl::Mutex mu_;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  int responses_ ABSL_GUARDED_BY(mu_) = 0;
  grpc::Status status_ ABSL_GUARDED_BY(mu_);
};

// Whether `message` has the form "<field>: <rule>" (or "<field> (<note>): <rule>"):
// "value: ..." has field "value", "request_value: ..." and "values[0]: ..." do not.
bool BadInputStartsWithField(const std::string& message, const std::string& field) {
  return absl::StartsWith(message, absl::StrCat(field, ": ")) ||
         absl::StartsWith(message, absl::StrCat(field, " ("));
}

// Every RPC of api.proto as "<Service>/<Method>".
std::set<std::string> BadInputApiMethods() {
  const google::protobuf::FileDescriptor* file =
      google::protobuf::DescriptorPool::generated_pool()->FindFileByName("credledger/v1/api.proto");
  std::set<std::string> methods;
  if (file == nullptr) {
    ADD_FAILURE() << "credledger/v1/api.proto is not linked in";
    return methods;
  }
  for (int s = 0; s < file->service_count(); ++s) {
    const google::protobuf::ServiceDescriptor* service = file->service(s);
    for (int m = 0; m < service->method_count(); ++m) {
      methods.insert(absl::StrCat(service->name(), "/", service->method(m)->name()));
    }
  }
  return methods;
}

class BadInputApiTest : public ApiFixture {
 protected:
  void SetUp() override {
    ApiFixture::SetUp();
    Register("demo", "edge-1", "setup-target");
    v1::RegisterClusterRequest cluster;
    cluster.set_request_id("setup-cluster");
    cluster.set_name("home");
    cluster.mutable_spec()->set_connection_mode(v1::CLUSTER_CONNECTION_MODE_IN_CLUSTER);
    v1::ClusterChangeResponse registered;
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + kBadInputCallDeadline));
    const grpc::Status status =
        v1::ClusterService::NewStub(channel_)->RegisterCluster(&context, cluster, &registered);
    ASSERT_TRUE(status.ok()) << status.error_message();
    stub_generic_ = std::make_unique<grpc::GenericStub>(channel_);
  }

  // Sends `bytes` to `method` ("TargetService/RegisterTarget"); sets `*responses`.
  grpc::Status Send(const std::string& method, const std::string& bytes, int* responses) {
    RawRpcCall call(*stub_generic_, absl::StrCat("/", kBadInputPackage, ".", method), bytes);
    return call.Wait(responses);
  }

  std::unique_ptr<grpc::GenericStub> stub_generic_;
};

TEST_F(BadInputApiTest, EveryRowIsRefusedNamingTheFieldAndAppendsNothing) {
  const std::vector<BadInputRpcRow> rows = BadInputRpcRows();
  ASSERT_FALSE(rows.empty());
  const int64_t head = HeadSeq();
  ASSERT_GT(head, 0);
  for (size_t i = 0; i < rows.size(); ++i) {
    const BadInputRpcRow& row = rows[i];
    SCOPED_TRACE(absl::StrCat("row ", i, ": ", row.method, " ", BadInputKindName(row.kind), " (",
                              row.field.empty() ? "no field" : row.field, ", ",
                              absl::StrJoin(row.rule, "; "), ")"));
    int responses = 0;
    const grpc::Status status = Send(row.method, row.request, &responses);
    EXPECT_EQ(status.error_code(), row.code) << status.error_message();
    EXPECT_EQ(responses, 0);
    const std::string& message = status.error_message();
    EXPECT_LE(message.size(), kMaxBadInputMessageBytes) << message.substr(0, 200);
    if (!row.field.empty()) {
      EXPECT_TRUE(BadInputStartsWithField(message, row.field))
          << "message does not start with " << row.field << ": " << message.substr(0, 200);
    }
    for (const std::string& rule : row.rule) EXPECT_THAT(message, HasSubstr(rule));
    EXPECT_EQ(HeadSeq(), head) << "the refused request appended events";
  }
}

// Bytes that do not parse as any request message (a length-delimited field 1 whose length
// runs past the end), sent to every RPC.
TEST_F(BadInputApiTest, EveryRpcRefusesBytesThatDoNotParseAndAppendsNothing) {
  const int64_t head = HeadSeq();
  for (const std::string& method : BadInputApiMethods()) {
    SCOPED_TRACE(method);
    int responses = 0;
    const grpc::Status status =
        Send(method, std::string("\x0a\xff\xff\xff\xff\x0f\x01", 7), &responses);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
    EXPECT_THAT(status.error_message(), HasSubstr(kBadRpcUnparsed));
    EXPECT_EQ(responses, 0);
    EXPECT_LE(status.error_message().size(), kMaxBadInputMessageBytes);
    EXPECT_EQ(HeadSeq(), head);
  }
}

// The completeness check: an RPC added to api.proto without rows fails here, naming it.
TEST(BadInputApiTableTest, EveryRpcOfTheApiHasRowsAndEveryRowNamesAnRpc) {
  const std::set<std::string> methods = BadInputApiMethods();
  ASSERT_GE(methods.size(), 33u);  // the RPCs of the six services when this was written
  std::set<std::string> covered;
  for (const BadInputRpcRow& row : BadInputRpcRows()) {
    EXPECT_TRUE(methods.count(row.method) > 0) << "row names no RPC of api.proto: " << row.method;
    covered.insert(row.method);
  }
  std::vector<std::string> missing;
  for (const std::string& method : methods) {
    if (covered.count(method) == 0) missing.push_back(method);
  }
  EXPECT_TRUE(missing.empty()) << "RPCs without bad-input rows: " << absl::StrJoin(missing, ", ");
}

}  // namespace bad_input_api_test
}  // namespace credledger::testing
