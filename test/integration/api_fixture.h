// A real credledger Server for API integration tests: SQLite file in a temp dir, listening
// on 127.0.0.1 port 0, credentials enabled against a made-up agent API server URL and CA
// file. Tests talk to it over a real gRPC channel.
#pragma once

#include <grpcpp/grpcpp.h>

#include <fstream>
#include <memory>
#include <string>

#include "absl/time/time.h"
#include "credledger/v1/api.grpc.pb.h"
#include "gtest/gtest.h"
#include "service/server/server.h"
#include "store/event_store.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::testing {

inline constexpr char kAgentUrl[] = "https://agents.example:6443";
inline constexpr char kAgentCa[] =
    "-----BEGIN CERTIFICATE-----\ntest-ca\n-----END CERTIFICATE-----\n";

class ApiFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(dir_.path() / "ca.pem") << kAgentCa;
    StartServer();
  }
  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown();
  }

  void StartServer() {
    service::ServeOptions options;
    options.log.db_path = dir_.path() / "var" / "credledger.db";
    options.grpc.listen_address = "127.0.0.1:0";
    options.grpc.port_file = dir_.path() / "port";
    options.credentials.agent_apiserver_url = kAgentUrl;
    options.credentials.agent_ca_file = dir_.path() / "ca.pem";
    options.credentials.agent_token_ttl = absl::Hours(24);
    options.grpc.authorization_policy = policy_file_;
    options.grpc.insecure_allow_all = policy_file_.empty() && allow_all_without_policy_;
    // Refused calls are recorded at shutdown only, so a minute ending during a test does not
    // move the head the test watches.
    options.grpc.denial_record_interval = absl::InfiniteDuration();
    Configure(options);
    auto server = service::Server::Start(options);
    ASSERT_OK(server);
    server_ = *std::move(server);
    channel_ = grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials());
    stub_ = v1::TargetService::NewStub(channel_);
  }

  // Lets a fixture change the options of every start.
  virtual void Configure(service::ServeOptions&) {}

  // Restarts the server under the authorization policy `yaml`.
  void RestartWithPolicy(const std::string& yaml) {
    policy_file_ = dir_.path() / "policy.yaml";
    std::ofstream(policy_file_) << yaml;
    RestartServer();
  }
  // Restarts the server with neither a policy nor --insecure-allow-all.
  void RestartWithoutPolicy() {
    policy_file_.clear();
    allow_all_without_policy_ = false;
    RestartServer();
  }
  void RestartServer() {
    server_->Shutdown();
    server_.reset();
    StartServer();
  }

  // Calls a unary RPC as `actor` (no metadata when empty) with a 20 s deadline.
  template <typename Request, typename Response>
  grpc::Status Call(grpc::Status (v1::TargetService::Stub::*method)(grpc::ClientContext*,
                                                                    const Request&, Response*),
                    const Request& request, Response* response,
                    const std::string& actor = "alice") {
    grpc::ClientContext context;
    if (!actor.empty()) context.AddMetadata("credledger-actor", actor);
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    return (stub_.get()->*method)(&context, request, response);
  }

  v1::RegisterTargetResponse Register(const std::string& ns, const std::string& name,
                                      const std::string& request_id, const std::string& uid = "") {
    v1::RegisterTargetRequest request;
    request.set_namespace_(ns);
    request.set_name(name);
    request.set_request_id(request_id);
    request.set_uid(uid);
    v1::RegisterTargetResponse response;
    grpc::Status status = Call(&v1::TargetService::Stub::RegisterTarget, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  int64_t HeadSeq() const { return server_->event_store()->HeadSeq(); }

  TempDir dir_;
  // Authorization policy the server starts with; empty: every caller may call every RPC
  // (--insecure-allow-all), unless `allow_all_without_policy_` is false.
  std::filesystem::path policy_file_;
  bool allow_all_without_policy_ = true;
  std::unique_ptr<service::Server> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::TargetService::Stub> stub_;
};

}  // namespace credledger::testing
