// The gRPC API over TLS and mutual TLS (docs/api.md, "Transport", "Caller identity",
// "Authorization" and "Refused calls in the log"; docs/operations.md, "TLS certificates"): a
// real Server on loopback with certificates generated per test, clients over real TLS channels.
// The client certificate names the caller (URI SAN, else subject), the authorization policy
// decides, refusals are PERMISSION_DENIED and are recorded as CallsDenied events per identity
// and minute.
#include <grpcpp/grpcpp.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "credledger/v1/api.grpc.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/credledger_main.h"
#include "service/server/server.h"
#include "service/server/tls_file_guard.h"
#include "service/wire/grpc_log.h"
#include "store/event_codec.h"
#include "store/event_store.h"
#include "store/sqlite_event_store.h"
#include "test/integration/await_tls_file_guard.h"
#include "test/kubeapi/tls_material.h"
#include "test/support/captured_log.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::testing {
namespace grpc_tls_test {

using ::testing::HasSubstr;
using ::testing::Not;
using Stub = v1::TargetService::Stub;

constexpr char kOps[] = "spiffe://credledger.test/ops";
constexpr char kViewer[] = "spiffe://credledger.test/viewer";
constexpr char kAgentEdgeA[] = "spiffe://credledger.test/agent/demo/edge-a";

constexpr char kPolicy[] = R"(identities:
  - name: spiffe://credledger.test/ops
    rpcs: ["TargetService/*"]
  - name: spiffe://credledger.test/viewer
    rpcs: ["TargetService/GetTarget", "TargetService/ListTargets"]
  - name: CN=auditor
    rpcs: ["TargetService/ListTargets"]
  - name: spiffe://credledger.test/agent/*
    rpcs: ["ReportService/PushReport"]
    targets: ["{identity-suffix}"]
)";

class GrpcTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(material_, kubeapi::GenerateTlsMaterial({"localhost"}, {"127.0.0.1"}));
    Write("ca.pem", material_.ca_cert_pem);
    Write("server.pem", material_.server_cert_pem);
    Write("server-key.pem", material_.server_key_pem);
    ASSERT_OK_AND_ASSIGN(std::string client_ca,
                         kubeapi::CertificatePem(material_.client_ca_cert.get()));
    Write("clients.pem", client_ca);
    Issue("ops", "ops", {kOps});
    Issue("viewer", "viewer", {kViewer});
    Issue("auditor", "auditor", {});
    Issue("agent-a", "agent-a", {kAgentEdgeA});
    Write("policy.yaml", kPolicy);
  }
  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown();
  }

  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_.path() / name) << text;
  }
  std::string PathOf(const std::string& name) const { return (dir_.path() / name).string(); }
  std::string Read(const std::string& name) const {
    std::ifstream in(dir_.path() / name);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  // Issues <name>.pem and <name>-key.pem: subject CN `common_name`, URI SANs `uris`.
  void Issue(const std::string& name, const std::string& common_name,
             const std::vector<std::string>& uris) {
    ASSERT_OK_AND_ASSIGN(
        kubeapi::ClientCertificate cert,
        kubeapi::IssueClientCertificate(material_.client_ca_cert.get(),
                                        material_.client_ca_key.get(), common_name, {}, uris));
    Write(name + ".pem", cert.certificate_pem);
    Write(name + "-key.pem", cert.key_pem);
  }

  // Starts the server with TLS on `listen`, mutual when `mutual`.
  void Start(bool mutual, const std::string& listen = "127.0.0.1:0") {
    service::ServeOptions options;
    options.log.db_path = dir_.path() / "credledger.db";
    options.grpc.listen_address = listen;
    options.grpc.tls.cert_file = PathOf("server.pem");
    options.grpc.tls.key_file = PathOf("server-key.pem");
    if (mutual) options.grpc.tls.client_ca_file = PathOf("clients.pem");
    options.grpc.tls.reload_interval = absl::Seconds(1);
    options.grpc.authorization_policy = dir_.path() / "policy.yaml";
    options.grpc.denial_record_interval = absl::InfiniteDuration();
    ASSERT_OK_AND_ASSIGN(server_, service::Server::Start(options));
    target_ = absl::StrCat("localhost:", server_->port());
  }

  // A TLS channel trusting the test CA, presenting client certificate `client` unless empty.
  std::shared_ptr<grpc::Channel> TlsChannel(const std::string& client) const {
    grpc::SslCredentialsOptions tls;
    tls.pem_root_certs = material_.ca_cert_pem;
    if (!client.empty()) {
      tls.pem_cert_chain = Read(client + ".pem");
      tls.pem_private_key = Read(client + "-key.pem");
    }
    return grpc::CreateChannel(target_, grpc::SslCredentials(tls));
  }
  std::unique_ptr<Stub> TlsStub(const std::string& client) const {
    return v1::TargetService::NewStub(TlsChannel(client));
  }

  // Whether a new connection (its own subchannel) trusting `ca_pem` and presenting client
  // certificate `client` (unless empty) completes the TLS handshake before `timeout`.
  bool Handshakes(const std::string& ca_pem, const std::string& client = "",
                  absl::Duration timeout = absl::Seconds(10)) const {
    grpc::SslCredentialsOptions tls;
    tls.pem_root_certs = ca_pem;
    if (!client.empty()) {
      tls.pem_cert_chain = Read(client + ".pem");
      tls.pem_private_key = Read(client + "-key.pem");
    }
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    std::shared_ptr<grpc::Channel> channel =
        grpc::CreateCustomChannel(target_, grpc::SslCredentials(tls), args);
    return channel->WaitForConnected(absl::ToChronoTime(absl::Now() + timeout));
  }
  // Connects on a new connection trusting the test CA without a client certificate; true
  // once the handshake has failed (within 10 s).
  bool FailsHandshake() const {
    grpc::SslCredentialsOptions tls;
    tls.pem_root_certs = material_.ca_cert_pem;
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    std::shared_ptr<grpc::Channel> channel =
        grpc::CreateCustomChannel(target_, grpc::SslCredentials(tls), args);
    const auto deadline = absl::ToChronoTime(absl::Now() + absl::Seconds(10));
    grpc_connectivity_state state = channel->GetState(/*try_to_connect=*/true);
    while (state != GRPC_CHANNEL_TRANSIENT_FAILURE) {
      if (!channel->WaitForStateChange(state, deadline)) return false;
      state = channel->GetState(/*try_to_connect=*/false);
    }
    return true;
  }
  // Waits (up to 20 s) until the server's TLS file guard has refused `more` further checks
  // of its files. Three refusals span two reload intervals, so that gRPC's own watcher of
  // the staged copies has refreshed at least once in between.
  bool AwaitRefusedChecks(int64_t more) const {
    const service::TlsFileGuard& guard = *server_->tls_files();
    return AwaitTlsFileGuardCount(guard, &service::TlsFileGuard::refused, guard.refused() + more);
  }

  static grpc::Status Register(Stub& stub, const std::string& name,
                               const std::string& declared = "") {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    if (!declared.empty()) context.AddMetadata("credledger-actor", declared);
    v1::RegisterTargetRequest request;
    request.set_namespace_("demo");
    request.set_name(name);
    request.set_request_id(absl::StrCat("register-", name));
    v1::RegisterTargetResponse response;
    return stub.RegisterTarget(&context, request, &response);
  }
  static grpc::Status List(Stub& stub) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    v1::ListTargetsRequest request;
    v1::ListTargetsResponse response;
    return stub.ListTargets(&context, request, &response);
  }

  // The actor of the newest event of stream `stream`.
  std::string ActorOfLast(const std::string& stream) {
    absl::StatusOr<std::vector<store::RecordedEvent>> events =
        server_->event_store()->ReadStream(stream, 0, 100);
    EXPECT_OK(events);
    if (!events.ok() || events->empty()) return "";
    v1::EventMetadata metadata;
    EXPECT_TRUE(metadata.ParseFromString(events->back().metadata));
    return metadata.actor();
  }

  // Stops the server and returns the refused calls recorded in the log: identity ->
  // "authentication:<name>", "declared:<name>" (and "declared:(unlisted)") -> 1 and "<rpc>" ->
  // count, summed over minutes.
  std::map<std::string, std::map<std::string, int64_t>> RecordedDenials() {
    server_->Shutdown();
    server_.reset();
    store::SqliteEventStoreOptions options;
    options.path = dir_.path() / "credledger.db";
    options.read_only = true;
    std::map<std::string, std::map<std::string, int64_t>> denials;
    absl::StatusOr<std::unique_ptr<store::SqliteEventStore>> log =
        store::SqliteEventStore::Open(options);
    EXPECT_OK(log);
    if (!log.ok()) return denials;
    absl::StatusOr<std::vector<store::RecordedEvent>> events =
        (*log)->ReadStream("access", 0, 1000);
    EXPECT_OK(events);
    if (!events.ok()) return denials;
    for (const store::RecordedEvent& event : *events) {
      absl::StatusOr<v1::Event> decoded = store::EventCodec::Default().Decode(event);
      EXPECT_OK(decoded);
      if (!decoded.ok()) continue;
      const v1::CallsDenied& denied = decoded->calls_denied();
      denials[denied.identity()]["authentication:" + denied.authentication()] = 1;
      for (const std::string& name : denied.declared_names()) {
        denials[denied.identity()]["declared:" + name] = 1;
      }
      if (denied.unlisted_declared_names()) denials[denied.identity()]["declared:(unlisted)"] = 1;
      for (const v1::DeniedRpc& rpc : denied.rpcs()) {
        denials[denied.identity()][rpc.rpc()] += rpc.count();
      }
    }
    return denials;
  }

  TempDir dir_;
  kubeapi::TlsMaterial material_;
  std::unique_ptr<service::Server> server_;
  std::string target_;
};

TEST(TransportModeNameTest, NamesWhatTheTlsFlagsTurnOn) {
  service::ServerTlsFiles files;
  EXPECT_EQ(service::TransportModeName(files), "plaintext");
  files.cert_file = "c.pem";
  files.key_file = "k.pem";
  EXPECT_EQ(service::TransportModeName(files), "TLS");
  files.client_ca_file = "ca.pem";
  EXPECT_EQ(service::TransportModeName(files), "mutual TLS");
}

TEST_F(GrpcTlsTest, ClientCertificateNamesTheCallerAndThePolicyDecides) {
  Start(/*mutual=*/true);
  std::unique_ptr<Stub> ops = TlsStub("ops");
  grpc::Status registered = Register(*ops, "edge-1");
  ASSERT_TRUE(registered.ok()) << registered.error_message();
  EXPECT_EQ(ActorOfLast("target/demo/edge-1"), kOps);

  std::unique_ptr<Stub> viewer = TlsStub("viewer");
  EXPECT_TRUE(List(*viewer).ok());
  grpc::Status denied = Register(*viewer, "edge-2");
  EXPECT_EQ(denied.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(denied.error_message(), HasSubstr(kViewer));
}

// An agent's certificate names its Target; the policy scopes it to that Target, so a report
// for another Target (which could release that Target's credential Secrets) is refused before
// anything is read or appended, and recorded like every refusal.
TEST_F(GrpcTlsTest, AnAgentCertificateMayPushReportsOnlyForItsOwnTarget) {
  Start(/*mutual=*/true);
  std::unique_ptr<Stub> ops = TlsStub("ops");
  ASSERT_TRUE(Register(*ops, "edge-a").ok());
  ASSERT_TRUE(Register(*ops, "edge-b").ok());
  std::unique_ptr<v1::ReportService::Stub> agent =
      v1::ReportService::NewStub(TlsChannel("agent-a"));
  auto push = [&](const std::string& name) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    v1::PushReportRequest request;
    request.set_namespace_("demo");
    request.set_name(name);
    request.set_request_id(absl::StrCat("push-", name));
    request.mutable_report()->mutable_last_report_time()->set_seconds(
        absl::ToUnixSeconds(absl::Now()));
    v1::PushReportResponse response;
    return agent->PushReport(&context, request, &response);
  };
  const int64_t head = server_->event_store()->HeadSeq();
  grpc::Status other = push("edge-b");
  EXPECT_EQ(other.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(other.error_message(),
              HasSubstr(absl::StrCat("caller \"", kAgentEdgeA,
                                     "\" may not call ReportService/PushReport for Target "
                                     "\"demo/edge-b\": its Targets are demo/edge-a")));
  EXPECT_EQ(server_->event_store()->HeadSeq(), head);
  grpc::Status own = push("edge-a");
  EXPECT_TRUE(own.ok()) << own.error_message();
  EXPECT_EQ(ActorOfLast("report/demo/edge-a"), kAgentEdgeA);
  EXPECT_EQ(RecordedDenials()[kAgentEdgeA]["ReportService/PushReport"], 1);
}

TEST_F(GrpcTlsTest, WithoutAUriSanTheSubjectNamesTheCaller) {
  Start(/*mutual=*/true);
  std::unique_ptr<Stub> auditor = TlsStub("auditor");
  grpc::Status listed = List(*auditor);
  EXPECT_TRUE(listed.ok()) << listed.error_message();
  grpc::Status denied = Register(*auditor, "edge-1");
  EXPECT_EQ(denied.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(denied.error_message(), HasSubstr("\"CN=auditor\""));
}

TEST_F(GrpcTlsTest, ADeclaredActorMustBeTheCertificatesIdentity) {
  Start(/*mutual=*/true);
  std::unique_ptr<Stub> ops = TlsStub("ops");
  grpc::Status other = Register(*ops, "edge-1", "admin");
  EXPECT_EQ(other.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(other.error_message(), HasSubstr("differs from the client certificate's identity"));
  grpc::Status same = Register(*ops, "edge-1", kOps);
  EXPECT_TRUE(same.ok()) << same.error_message();
}

TEST_F(GrpcTlsTest, MutualTlsRefusesClientsWithoutCertificateAndPlaintext) {
  Start(/*mutual=*/true);
  const int64_t head = server_->event_store()->HeadSeq();
  std::unique_ptr<Stub> no_certificate = TlsStub("");
  EXPECT_EQ(List(*no_certificate).error_code(), grpc::StatusCode::UNAVAILABLE);
  auto plaintext =
      v1::TargetService::NewStub(grpc::CreateChannel(target_, grpc::InsecureChannelCredentials()));
  EXPECT_EQ(Register(*plaintext, "edge-1").error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(server_->event_store()->HeadSeq(), head);
}

// Regression: gRPC wrote a plain-text stderr line for every failed handshake (6,408 lines in
// 10 s from clients without a certificate). With gRPC's messages routed as serve routes
// them, a flood of such handshakes writes one line per interval (two when the flood straddles
// the end of one) and counts the rest.
TEST_F(GrpcTlsTest, FailedHandshakesWriteBoundedLines) {
  CapturedLog log;
  common::RepeatLog& handshakes = service::RouteGrpcLogsToServiceLog();
  Start(/*mutual=*/true);
  constexpr int kHandshakes = 40;
  for (int i = 0; i < kHandshakes; ++i) ASSERT_TRUE(FailsHandshake()) << i;
  server_->Shutdown();
  handshakes.Stop();
  const size_t written = log.Lines(service::kHandshakeFailedMessage).size();
  EXPECT_GE(written, 1u);
  EXPECT_LE(written, 2u);
  int64_t summed_up = 0;
  for (const nlohmann::json& line : log.Lines(service::kHandshakeFailedSummary)) {
    int64_t count = 0;
    EXPECT_TRUE(absl::SimpleAtoi(line["count"].get<std::string>(), &count));
    summed_up += count;
  }
  EXPECT_EQ(static_cast<int64_t>(written) + summed_up, kHandshakes);
  for (const nlohmann::json& line : log.Lines(service::kGrpcLogMessage)) {
    EXPECT_THAT(line["message"].get<std::string>(), Not(HasSubstr("andshake"))) << line;
  }
}

// A name declared on loopback is honoured as a declared name, which the ops entry does not
// accept: declaring a certificate's identity does not pass for it.
TEST_F(GrpcTlsTest, ServerTlsListensOnEveryAddressAndADeclaredNameDoesNotPassForACertificate) {
  Start(/*mutual=*/false, "0.0.0.0:0");
  std::unique_ptr<Stub> anyone = TlsStub("");
  grpc::Status declared = Register(*anyone, "edge-1", std::string(kOps));
  EXPECT_EQ(declared.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(declared.error_message(),
              HasSubstr(absl::StrCat("caller \"", kOps, "\" may not call")));
  EXPECT_EQ(RecordedDenials()[kOps]["authentication:declared"], 1);
  Start(/*mutual=*/false, "0.0.0.0:0");
  auto plaintext =
      v1::TargetService::NewStub(grpc::CreateChannel(target_, grpc::InsecureChannelCredentials()));
  EXPECT_EQ(List(*plaintext).error_code(), grpc::StatusCode::UNAVAILABLE);
}

TEST_F(GrpcTlsTest, RefusedCallsAreRecordedPerIdentityAndMinute) {
  Start(/*mutual=*/true);
  std::unique_ptr<Stub> viewer = TlsStub("viewer");
  std::unique_ptr<Stub> auditor = TlsStub("auditor");
  std::unique_ptr<Stub> ops = TlsStub("ops");
  for (int i = 0; i < 40; ++i) {
    EXPECT_EQ(Register(*viewer, "edge-1").error_code(), grpc::StatusCode::PERMISSION_DENIED);
  }
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(Register(*auditor, "edge-1").error_code(), grpc::StatusCode::PERMISSION_DENIED);
  }
  EXPECT_EQ(Register(*ops, "edge-1", "admin").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(List(*viewer).ok());  // allowed calls are not counted

  const auto denials = RecordedDenials();
  ASSERT_EQ(denials.size(), 3u);
  EXPECT_EQ(denials.at(kViewer),
            (std::map<std::string, int64_t>{{"authentication:certificate", 1},
                                            {"TargetService/RegisterTarget", 40}}));
  EXPECT_EQ(denials.at("CN=auditor"),
            (std::map<std::string, int64_t>{{"authentication:certificate", 1},
                                            {"TargetService/RegisterTarget", 3}}));
  // Declaring another name is refused, and recorded under the certificate's identity with
  // the name it declared.
  EXPECT_EQ(denials.at(kOps),
            (std::map<std::string, int64_t>{{"authentication:certificate", 1},
                                            {"declared:admin", 1},
                                            {"TargetService/RegisterTarget", 1}}));
}

TEST_F(GrpcTlsTest, CliConnectsWithTlsFlags) {
  Start(/*mutual=*/true);
  std::ostringstream out, err;
  const int code =
      service::CredledgerMain({"target", "register", "demo/edge-1", "--server", target_, "--tls-ca",
                               PathOf("ca.pem"), "--tls-cert", PathOf("ops.pem"), "--tls-key",
                               PathOf("ops-key.pem"), "--request-id", "cli-1"},
                              out, err);
  EXPECT_EQ(code, 0) << err.str();
  EXPECT_EQ(ActorOfLast("target/demo/edge-1"), kOps);

  std::ostringstream out2, err2;
  EXPECT_EQ(service::CredledgerMain(
                {"target", "list", "--server", target_, "--tls-ca", PathOf("ca.pem"), "--tls-cert",
                 PathOf("ops.pem"), "--tls-key", PathOf("viewer-key.pem")},
                out2, err2),
            1);
  EXPECT_THAT(err2.str(), HasSubstr("--tls-key: the key does not belong to the certificate"));

  std::ostringstream out3, err3;
  EXPECT_EQ(
      service::CredledgerMain(
          {"target", "list", "--server", target_, "--tls-key", PathOf("ops-key.pem")}, out3, err3),
      2);
  EXPECT_THAT(err3.str(), HasSubstr("--tls-cert: required with --tls-key"));
}

TEST_F(GrpcTlsTest, CliCallsThatCannotConnectGetAHintNamingTheFlagsToCheck) {
  Start(/*mutual=*/true);
  // Runs `target list` against `server` with `flags`; returns its stderr (the call fails).
  auto failure = [](const std::string& server, std::vector<std::string> flags) {
    std::vector<std::string> args = {"target", "list", "--server", server};
    args.insert(args.end(), flags.begin(), flags.end());
    std::ostringstream out, err;
    EXPECT_EQ(service::CredledgerMain(args, out, err), 1) << err.str();
    EXPECT_THAT(err.str(), HasSubstr("error: UNAVAILABLE: "));
    return err.str();
  };
  EXPECT_THAT(failure(target_, {}), HasSubstr("; hint: the server closed the connection as it "
                                              "was set up: if it serves TLS, pass --tls-ca"));
  EXPECT_THAT(failure(target_, {"--tls-ca", PathOf("ca.pem")}),
              HasSubstr("; hint: the server ended the TLS handshake: if it requires client "
                        "certificates (mutual TLS), pass --tls-cert and --tls-key"));
  // A certificate the server's client CA did not sign.
  EXPECT_THAT(failure(target_, {"--tls-ca", PathOf("ca.pem"), "--tls-cert", PathOf("server.pem"),
                                "--tls-key", PathOf("server-key.pem")}),
              HasSubstr("; hint: the server ended the TLS handshake: it may not accept this "
                        "client certificate"));
  // A CA that did not sign the server's certificate.
  EXPECT_THAT(failure(target_, {"--tls-ca", PathOf("clients.pem")}),
              HasSubstr("; hint: the server's certificate did not verify: --tls-ca must hold"));

  // TLS flags against a plaintext server, and no server at all.
  service::ServeOptions options;
  options.grpc.insecure_allow_all = true;
  options.log.db_path = dir_.path() / "plaintext.db";
  options.grpc.listen_address = "127.0.0.1:0";
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<service::Server> plaintext, service::Server::Start(options));
  const std::string plaintext_target = absl::StrCat("127.0.0.1:", plaintext->port());
  EXPECT_THAT(failure(plaintext_target, {"--tls-ca", PathOf("ca.pem")}),
              HasSubstr("; hint: the server does not speak TLS at that address"));
  plaintext->Shutdown();
  plaintext.reset();
  EXPECT_THAT(failure(plaintext_target, {}),
              HasSubstr("; hint: nothing accepts connections at that address"));
}

TEST_F(GrpcTlsTest, BadServerFilesFailTheStartNamingTheFlag) {
  service::ServeOptions options;
  options.grpc.insecure_allow_all = true;
  options.log.db_path = dir_.path() / "credledger.db";
  options.grpc.listen_address = "127.0.0.1:0";
  options.grpc.tls.cert_file = PathOf("server.pem");
  options.grpc.tls.key_file = PathOf("ops-key.pem");
  EXPECT_THAT(service::Server::Start(options).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--tls-key: the key does not belong to the certificate")));
  options.grpc.tls.key_file = PathOf("ca.pem");
  EXPECT_THAT(service::Server::Start(options).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--tls-key: the file holds no unencrypted PEM private key")));
  options.grpc.tls.key_file = PathOf("server-key.pem");
  options.grpc.tls.client_ca_file = PathOf("missing.pem");
  EXPECT_THAT(service::Server::Start(options).status(),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("--tls-client-ca:")));
  // Refused before the log is opened: no database was created (or migrated).
  EXPECT_FALSE(std::filesystem::exists(options.log.db_path));
}

TEST_F(GrpcTlsTest, ReloadedFilesThatFailTheChecksLeaveTheLastGoodCertificateInUse) {
  Start(/*mutual=*/true);
  ASSERT_TRUE(Handshakes(material_.ca_cert_pem, "ops"));
  // A certificate that does not belong to the key.
  Write("server.pem", Read("ops.pem"));
  ASSERT_TRUE(AwaitRefusedChecks(3));
  EXPECT_TRUE(Handshakes(material_.ca_cert_pem, "ops"));
  // The pair restored, and a client CA bundle without a certificate.
  Write("server.pem", material_.server_cert_pem);
  Write("clients.pem", "not a certificate\n");
  ASSERT_TRUE(AwaitRefusedChecks(3));
  EXPECT_TRUE(Handshakes(material_.ca_cert_pem, "ops"));
  EXPECT_EQ(server_->tls_files()->published(), 0);

  // A renewed certificate and key from a new CA: new connections use them.
  ASSERT_OK_AND_ASSIGN(kubeapi::TlsMaterial renewed,
                       kubeapi::GenerateTlsMaterial({"localhost"}, {"127.0.0.1"}));
  ASSERT_OK_AND_ASSIGN(std::string client_ca,
                       kubeapi::CertificatePem(material_.client_ca_cert.get()));
  Write("clients.pem", client_ca);
  Write("server-key.pem", renewed.server_key_pem);
  Write("server.pem", renewed.server_cert_pem);
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  bool renewed_in_use = false;
  while (!renewed_in_use && absl::Now() < deadline) {
    renewed_in_use = Handshakes(renewed.ca_cert_pem, "ops", absl::Seconds(1));
  }
  EXPECT_TRUE(renewed_in_use);
  EXPECT_GE(server_->tls_files()->published(), 1);
  EXPECT_FALSE(Handshakes(material_.ca_cert_pem, "ops", absl::Seconds(2)));
}

}  // namespace grpc_tls_test
}  // namespace credledger::testing
