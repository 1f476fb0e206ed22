// Metrics and health of a real `credledger serve` (docs/operations.md,
// "Metrics and health"): a Server on a SQLite file with gRPC on 127.0.0.1 port 0, its kube
// bridge on the test Kubernetes API server over HTTPS, and its HTTP endpoint on 127.0.0.1
// port 0. The test registers a Target, lets the bridge mint its credential through two
// injected 500s, and scrapes /metrics over HTTP.
#include <grpcpp/grpcpp.h>
#include <httplib.h>
#include <sqlite3.h>

#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "audit/signing_key.h"
#include "credledger/v1/api.grpc.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/credentials/credential_bridge.h"
#include "projections/credential_projector.h"
#include "projections/target_state.h"
#include "service/server/event_log.h"
#include "service/server/server.h"
#include "store/event_store.h"
#include "test/kubeapi/api_server.h"
#include "test/support/snapshot_tampering.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger {
namespace operations_integration_test {

constexpr char kNs[] = "demo";
constexpr char kTarget[] = "edge-1";
constexpr absl::Duration kWait = absl::Seconds(30);  // only reached when a test fails

// Series of an exposition ("name{labels}") to their values; comment lines skipped.
std::map<std::string, double> ParseExposition(const std::string& text) {
  std::map<std::string, double> series;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    if (line.front() == '#') continue;
    const size_t space = line.rfind(' ');
    double value = 0;
    EXPECT_TRUE(absl::SimpleAtod(line.substr(space + 1), &value)) << line;
    series[std::string(line.substr(0, space))] = value;
  }
  return series;
}

// Sum of the values of every series of metric `name` (with labels).
double SumOf(const std::map<std::string, double>& series, const std::string& name) {
  double sum = 0;
  for (const auto& [key, value] : series) {
    if (key.rfind(name + "{", 0) == 0) sum += value;
  }
  return sum;
}

// "<status> <body>" of a response, or why there is none.
std::string Answer(const httplib::Result& res) {
  if (!res) return "no response: " + httplib::to_string(res.error());
  return absl::StrCat(res->status, " ", res->body);
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class OperationsIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kubeapi::ApiServerOptions api;
    api.state_dir = dir_.path() / "kubeapi";
    api.namespaces = {kNs};
    ASSERT_OK_AND_ASSIGN(api_, kubeapi::ApiServer::Start(api));
  }

  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown();
  }

  service::ServeOptions Options() {
    service::ServeOptions options;
    options.grpc.insecure_allow_all = true;
    options.log.db_path = dir_.path() / "var" / "credledger.db";
    options.grpc.listen_address = "127.0.0.1:0";
    options.http.listen_address = "127.0.0.1:0";
    options.http.port_file = dir_.path() / "http-port";
    options.kube.kubeconfig = api_->kubeconfig_path();
    options.kube.qps = 1000;
    options.kube.burst = 1000;
    options.credentials.agent_apiserver_url = api_->url();
    options.credentials.agent_ca_file = api_->ca_path();
    return options;
  }

  // GET `path` from the HTTP endpoint whose port the port file names.
  httplib::Result Get(const std::string& path) {
    int port = 0;
    EXPECT_TRUE(
        absl::SimpleAtoi(absl::StripAsciiWhitespace(ReadFile(dir_.path() / "http-port")), &port));
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(20);
    return client.Get(path.c_str());
  }

  std::map<std::string, double> Scrape() {
    httplib::Result res = Get("/metrics");
    EXPECT_TRUE(res);
    if (!res) return {};
    EXPECT_EQ(res->status, 200);
    EXPECT_EQ(res->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
    return ParseExposition(res->body);
  }

  void Register() {
    auto stub = v1::TargetService::NewStub(
        grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials()));
    v1::RegisterTargetRequest request;
    request.set_namespace_(kNs);
    request.set_name(kTarget);
    request.set_request_id("register-1");
    v1::RegisterTargetResponse response;
    grpc::ClientContext context;
    context.AddMetadata("credledger-actor", "alice");
    context.set_deadline(absl::ToChronoTime(absl::Now() + kWait));
    grpc::Status status = stub->RegisterTarget(&context, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }

  // Waits (bounded) until the Target has a current credential.
  bool WaitForCredential() {
    const absl::Time give_up = absl::Now() + kWait;
    while (absl::Now() < give_up) {
      const int64_t seq = server_->projector()->seq();
      std::optional<v1::TargetState> state = server_->projector()->Get(kNs, kTarget);
      if (state.has_value() && projections::CurrentCredential(*state) != nullptr &&
          state->agent_credential_ready().reason() == "Issued") {
        return true;
      }
      server_->projector()->WaitForSeq(seq + 1, absl::Milliseconds(200));
    }
    return false;
  }

  testing::TempDir dir_;
  std::unique_ptr<kubeapi::ApiServer> api_;
  std::unique_ptr<service::Server> server_;
};

TEST_F(OperationsIntegrationTest, MetricsFollowAppendsKubernetesCallsAndCredentials) {
  // The first two ServiceAccount creates fail; the client's retries get the third through.
  kubeapi::Fault fault;
  fault.method = "POST";
  fault.path_prefix = "/api/v1/namespaces/demo/serviceaccounts";
  fault.status_code = 500;
  fault.times = 2;
  api_->faults().Add(fault);
  ASSERT_OK_AND_ASSIGN(server_, service::Server::Start(Options()));
  EXPECT_EQ(ReadFile(dir_.path() / "http-port"), absl::StrCat(server_->http_port(), "\n"));

  EXPECT_EQ(Answer(Get("/healthz")), "200 ok\n");
  ASSERT_TRUE(server_->credential_bridge()->WaitSynced(kWait));
  EXPECT_EQ(Answer(Get("/readyz")), "200 ok\n");

  std::map<std::string, double> before = Scrape();
  // Only ServiceConfigured so far, and no Target.
  EXPECT_EQ(before["credledger_log_events_appended_total"], 1);
  EXPECT_EQ(before["credledger_log_head_seq"], 1);
  EXPECT_EQ(SumOf(before, "credledger_credentials"), 0);
  EXPECT_EQ(before.count("credledger_kube_requests_total{verb=\"create\",code=\"500\"}"), 0u);

  ASSERT_NO_FATAL_FAILURE(Register());
  ASSERT_TRUE(WaitForCredential());

  const int64_t head_before = server_->event_store()->HeadSeq();
  std::map<std::string, double> after = Scrape();
  const int64_t head_after = server_->event_store()->HeadSeq();
  // Every event of this fresh log was appended by this process: ServiceConfigured, then the
  // Target's stream (registration, mint intent, identity objects, Secret, token) at least.
  const double appended = after["credledger_log_events_appended_total"];
  EXPECT_GE(appended, head_before);
  EXPECT_LE(appended, head_after);
  ASSERT_OK_AND_ASSIGN(
      std::vector<store::RecordedEvent> stream,
      server_->event_store()->ReadStream(projections::TargetStream(kNs, kTarget), 0, 100));
  EXPECT_GE(appended, 1 + static_cast<double>(stream.size()));
  EXPECT_GE(stream.size(), 5u);
  // Each command was timed; the count is the +Inf bucket.
  EXPECT_GE(after["credledger_log_append_latency_seconds_count"], 2);
  EXPECT_EQ(after["credledger_log_append_latency_seconds_bucket{le=\"+Inf\"}"],
            after["credledger_log_append_latency_seconds_count"]);
  EXPECT_GE(after["credledger_log_group_commit_commands_count"], 2);

  // The two injected failures, each counted once with its code, and the create that passed.
  EXPECT_EQ(api_->faults().fired(), 2);
  EXPECT_EQ(after["credledger_kube_requests_total{verb=\"create\",code=\"500\"}"], 2);
  EXPECT_GE(after["credledger_kube_requests_total{verb=\"create\",code=\"201\"}"], 1);
  // Retried inside the client: no reconcile pass failed.
  EXPECT_EQ(after["credledger_reconcile_errors_total{controller=\"credential_bridge\"}"], 0);
  EXPECT_EQ(after.count("credledger_reconcile_errors_total{controller=\"mirror_bridge\"}"), 1u);
  EXPECT_EQ(after.count("credledger_reconcile_errors_total{controller=\"cluster_prober\"}"), 1u);
  EXPECT_EQ(after.count("credledger_reconcile_queue_depth{controller=\"credential_bridge\"}"), 1u);

  // One registered Target, with its credential issued; nothing stale.
  EXPECT_EQ(after["credledger_credentials{status=\"True\",reason=\"Issued\"}"], 1);
  EXPECT_EQ(SumOf(after, "credledger_credentials"), 1);
  EXPECT_EQ(after["credledger_targets_stale"], 0);
  EXPECT_EQ(after.count("credledger_targets_clock_skew"), 1u);
  EXPECT_EQ(after["credledger_targets_clock_skew"], 0);
  EXPECT_EQ(after.count("credledger_log_writer_queue_depth"), 1u);
  EXPECT_GT(after["credledger_start_time_seconds"], 0);
  // No stream is open, no call waits for a thread.
  EXPECT_EQ(after.count("credledger_grpc_streams_open"), 1u);
  EXPECT_EQ(after["credledger_grpc_streams_open"], 0);
  EXPECT_EQ(after.count("credledger_grpc_calls_queued{pool=\"log\"}"), 1u);
  EXPECT_EQ(after["credledger_grpc_calls_queued{pool=\"remote\"}"], 0);
}

// While the log cannot be written (another connection holds its write lock), the HTTP
// endpoint already answers: alive, not ready, and why.
TEST_F(OperationsIntegrationTest, ReadyzIs503UntilTheLogIsOpenThen200) {
  service::ServeOptions options = Options();
  {
    // An empty log (schema only), so that the start must append ServiceConfigured.
    ASSERT_OK_AND_ASSIGN(auto store,
                         service::OpenEventLog(options.log.location(), store::OpenLogOptions()));
  }
  sqlite3* blocker = nullptr;
  ASSERT_EQ(sqlite3_open(options.log.db_path.c_str(), &blocker), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(blocker, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);

  absl::StatusOr<std::unique_ptr<service::Server>> started;
  std::thread start([&] { started = service::Server::Start(options); });
  const absl::Time give_up = absl::Now() + kWait;
  while (!std::filesystem::exists(options.http.port_file) && absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  const std::string health = Answer(Get("/healthz"));
  const std::string waiting = Answer(Get("/readyz"));
  sqlite3_exec(blocker, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(blocker);
  start.join();
  ASSERT_OK(started);
  server_ = *std::move(started);

  EXPECT_EQ(health, "200 ok\n");
  EXPECT_EQ(waiting, "503 not ready: log: opening and verifying the event log\n");
  ASSERT_TRUE(server_->credential_bridge()->WaitSynced(kWait));
  EXPECT_EQ(Answer(Get("/readyz")), "200 ok\n");
}

// While the credential bridge's caches lack their first list (here the API server refuses
// to list ServiceAccounts, as a ClusterRole without that right does), the service is ready
// for commands and /readyz says why no Target is reconciled.
TEST_F(OperationsIntegrationTest, ReadyzNamesACacheThatCannotList) {
  kubeapi::Fault refused;
  refused.method = "GET";
  refused.path_prefix = "/api/v1/serviceaccounts";
  refused.exact_path = true;
  refused.status_code = 403;
  api_->faults().Add(refused);
  ASSERT_OK_AND_ASSIGN(server_, service::Server::Start(Options()));
  ASSERT_TRUE(api_->faults().AwaitFired(1, kWait));
  const std::string ready = Answer(Get("/readyz"));
  EXPECT_TRUE(absl::StartsWith(
      ready, "200 ok\nkube-caches: waiting for the first list of serviceaccounts"))
      << ready;
  api_->faults().Clear();
  ASSERT_TRUE(server_->credential_bridge()->WaitSynced(kWait));
  EXPECT_EQ(Answer(Get("/readyz")), "200 ok\n");
}

// A projection snapshot that does not verify is counted per projection (docs/audit.md,
// "Snapshots"); every projection is listed, at 0 until one is refused.
TEST_F(OperationsIntegrationTest, RefusedSnapshotsAreCountedByProjection) {
  ASSERT_OK_AND_ASSIGN(audit::SigningKey key, audit::SigningKey::Generate());
  std::ofstream(dir_.path() / "signing-key.pem") << key.PrivatePem();
  service::ServeOptions options = Options();
  options.audit.signing_key = dir_.path() / "signing-key.pem";
  options.log.snapshot_every = 2;
  ASSERT_OK_AND_ASSIGN(server_, service::Server::Start(options));
  ASSERT_NO_FATAL_FAILURE(Register());
  ASSERT_TRUE(WaitForCredential());
  std::map<std::string, double> clean = Scrape();
  for (const char* projection : {"clusters", "credentials", "identities", "status"}) {
    EXPECT_EQ(clean.count(absl::StrCat("credledger_snapshots_rejected_total{projection=\"",
                                       projection, "\"}")),
              1u)
        << projection;
  }
  EXPECT_EQ(SumOf(clean, "credledger_snapshots_rejected_total"), 0);
  const int64_t head = server_->event_store()->HeadSeq();
  server_->Shutdown();
  server_.reset();

  store::Snapshot forged;
  {
    ASSERT_OK_AND_ASSIGN(auto log,
                         service::OpenEventLog(options.log.location(), store::OpenLogOptions()));
    ASSERT_OK_AND_ASSIGN(std::optional<store::Snapshot> newest,
                         log->LoadSnapshot(projections::kCredentialProjectionName, head));
    ASSERT_TRUE(newest.has_value());
    forged = *std::move(newest);
  }
  forged.state += "forged";
  ASSERT_OK(testing::OverwriteSnapshotRow(options.log.db_path, forged));

  ASSERT_OK_AND_ASSIGN(server_, service::Server::Start(options));
  std::map<std::string, double> after = Scrape();
  EXPECT_EQ(after["credledger_snapshots_rejected_total{projection=\"credentials\"}"], 1);
  EXPECT_EQ(SumOf(after, "credledger_snapshots_rejected_total"), 1);
}

}  // namespace operations_integration_test
}  // namespace credledger
