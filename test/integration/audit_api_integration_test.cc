// AuditService through a real server on loopback (docs/api.md, "AuditService"; docs/audit.md,
// "Export", "Checkpoints" and "Start-up check"): a streamed export with a signed trailer over
// gRPC, checkpoints signed while serving and at shutdown, the start-up tail check refusing a
// tampered log, and the read-only mode that serves it for investigation.
#include <sqlite3.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "audit/log_verifier.h"
#include "audit/signed_records.h"
#include "credledger/v1/api.grpc.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/sqlite_event_store.h"
#include "test/integration/api_fixture.h"

namespace credledger::testing {
namespace audit_api_integration_test {

using ::testing::AllOf;
using ::testing::HasSubstr;

class AuditApiIntegrationTest : public ApiFixture {
 protected:
  void SetUp() override {
    auto key = audit::SigningKey::Generate();
    ASSERT_OK(key);
    key_ = std::make_unique<audit::SigningKey>(*std::move(key));
    std::ofstream(dir_.path() / "signing-key.pem") << key_->PrivatePem();
    ApiFixture::SetUp();
    audit_ = v1::AuditService::NewStub(channel_);
  }

  void Configure(service::ServeOptions& options) override {
    options.audit.signing_key = dir_.path() / "signing-key.pem";
    options.audit.checkpoints.every_events = 2;
    options.log.read_only = read_only_;
    options.audit.trusted_public_keys = trusted_public_keys_;
  }

  std::filesystem::path db() const { return dir_.path() / "var" / "credledger.db"; }

  // Runs `sql` on a raw connection, as an attacker with the database file would.
  void Tamper(const std::string& sql) {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db().c_str(), &raw), SQLITE_OK);
    char* error = nullptr;
    const int rc = sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, &error);
    const std::string message = error == nullptr ? "" : error;
    sqlite3_free(error);
    sqlite3_close(raw);
    ASSERT_EQ(rc, SQLITE_OK) << message;
  }

  std::unique_ptr<audit::SigningKey> key_;
  std::unique_ptr<v1::AuditService::Stub> audit_;
  bool read_only_ = false;
  std::vector<std::filesystem::path> trusted_public_keys_;
};

TEST_F(AuditApiIntegrationTest, ExportStreamsTheLogWithATrailerSignedByTheServiceKey) {
  Register("demo", "edge-1", "req-1");
  Register("demo", "edge-2", "req-2");

  grpc::ClientContext context;
  context.AddMetadata("credledger-actor", "auditor");
  v1::ExportEventsRequest request;
  auto reader = audit_->ExportEvents(&context, request);
  v1::ExportEventsResponse response;
  std::vector<int64_t> seqs;
  v1::ExportTrailer trailer;
  while (reader->Read(&response)) {
    for (const v1::ExportedEvent& e : response.events()) seqs.push_back(e.seq());
    if (response.has_trailer()) trailer = response.trailer();
  }
  ASSERT_TRUE(reader->Finish().ok());
  ASSERT_FALSE(seqs.empty());
  EXPECT_EQ(seqs.front(), 1);
  EXPECT_EQ(static_cast<int64_t>(seqs.size()), trailer.event_count());
  EXPECT_EQ(trailer.last_seq(), seqs.back());
  EXPECT_GE(trailer.head_seq(), trailer.last_seq());
  EXPECT_EQ(trailer.key_id(), key_->key_id());
  EXPECT_OK(audit::VerifyTrailer(key_->public_key(), trailer));
}

TEST_F(AuditApiIntegrationTest, ShutdownLeavesTheWholeLogUnderAVerifiedCheckpoint) {
  Register("demo", "edge-1", "req-1");
  server_->Shutdown();
  server_.reset();

  store::SqliteEventStoreOptions options;
  options.path = db();
  options.read_only = true;
  ASSERT_OK_AND_ASSIGN(auto log, store::SqliteEventStore::Open(options));
  ASSERT_OK_AND_ASSIGN(audit::Verdict verdict, audit::VerifyLog(*log, key_->public_key(), 0));
  EXPECT_TRUE(verdict.ok()) << audit::FormatVerdict(verdict);
  ASSERT_TRUE(verdict.checkpoint.has_value());
  EXPECT_EQ(verdict.checkpoint->seq(), log->HeadSeq());
  StartServer();  // for TearDown
}

TEST_F(AuditApiIntegrationTest, ATamperedTailRefusesTheStartAndReadOnlyServesItForInvestigation) {
  Register("demo", "edge-1", "req-1");
  const int64_t head = HeadSeq();
  server_->Shutdown();
  server_.reset();
  Tamper(
      absl::StrCat("DROP TRIGGER events_refuse_update; UPDATE events SET payload = "
                   "x'0a00' WHERE seq = ",
                   head, ";"));

  service::ServeOptions options;

  options.grpc.insecure_allow_all = true;
  options.log.db_path = db();
  options.grpc.listen_address = "127.0.0.1:0";
  Configure(options);
  EXPECT_THAT(service::Server::Start(options),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr(absl::StrCat("does not verify at seq ", head)),
                             HasSubstr("--read-only"))));

  read_only_ = true;
  StartServer();
  audit_ = v1::AuditService::NewStub(channel_);
  EXPECT_EQ(HeadSeq(), head);  // nothing appended: no ServiceConfigured, no checkpoint

  v1::RegisterTargetRequest write;
  write.set_namespace_("demo");
  write.set_name("edge-2");
  write.set_request_id("req-2");
  v1::RegisterTargetResponse written;
  grpc::Status refused = Call(&v1::TargetService::Stub::RegisterTarget, write, &written);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(refused.error_message(), HasSubstr("read-only"));

  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
  v1::GetStateAtRequest at;
  at.mutable_as_of()->set_seq(head - 1);
  at.set_namespace_("demo");
  at.set_name("edge-1");
  v1::GetStateAtResponse state;
  grpc::Status answered = audit_->GetStateAt(&context, at, &state);
  ASSERT_TRUE(answered.ok()) << answered.error_message();
  ASSERT_EQ(state.targets_size(), 1);
  EXPECT_EQ(state.targets(0).name(), "edge-1");
  EXPECT_EQ(HeadSeq(), head);
}

TEST_F(AuditApiIntegrationTest, AKeyRotationStartsAndVerifiesWithTheOldAndTheNewKey) {
  Register("demo", "edge-1", "req-1");
  server_->Shutdown();  // the old key signs the head
  const audit::PublicKey old_key = key_->public_key();
  auto rotated = audit::SigningKey::Generate();
  ASSERT_OK(rotated);
  key_ = std::make_unique<audit::SigningKey>(*std::move(rotated));
  std::ofstream(dir_.path() / "signing-key.pem", std::ios::trunc) << key_->PrivatePem();
  std::ofstream(dir_.path() / "old-key.pub.pem") << old_key.Pem();
  server_.reset();
  // The newest checkpoint names the old key, trusted: the start does not refuse.
  trusted_public_keys_ = {dir_.path() / "old-key.pub.pem"};
  StartServer();
  audit_ = v1::AuditService::NewStub(channel_);

  grpc::ClientContext context;
  v1::ExportEventsRequest request;
  auto reader = audit_->ExportEvents(&context, request);
  v1::ExportEventsResponse response;
  v1::ExportTrailer trailer;
  while (reader->Read(&response)) {
    if (response.has_trailer()) trailer = response.trailer();
  }
  ASSERT_TRUE(reader->Finish().ok());
  EXPECT_EQ(trailer.key_id(), key_->key_id());
  ASSERT_EQ(trailer.checkpoint().key_id(), old_key.key_id());
  EXPECT_THAT(audit::VerifyTrailer(key_->public_key(), trailer),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr(old_key.key_id())));
  audit::KeyRing both;
  both.Add(old_key);
  both.Add(key_->public_key());
  EXPECT_OK(audit::VerifyTrailer(both, trailer));

  Register("demo", "edge-2", "req-2");
  server_->Shutdown();
  server_.reset();
  store::SqliteEventStoreOptions options;
  options.path = db();
  options.read_only = true;
  ASSERT_OK_AND_ASSIGN(auto log, store::SqliteEventStore::Open(options));
  ASSERT_OK_AND_ASSIGN(audit::Verdict verdict, audit::VerifyLog(*log, both, 0));
  EXPECT_TRUE(verdict.ok()) << audit::FormatVerdict(verdict);
  EXPECT_GE(verdict.checkpoints_checked, 2);
  ASSERT_OK_AND_ASSIGN(verdict, audit::VerifyLog(*log, key_->public_key(), 0));
  EXPECT_FALSE(verdict.ok());
  log.reset();
  StartServer();  // for TearDown
}

TEST_F(AuditApiIntegrationTest, ThePolicyGuardsTheAuditRpcs) {
  RestartWithPolicy(
      "identities:\n"
      "  - name: auditor\n"
      "    rpcs: [\"AuditService/*\"]\n"
      "    allow_declared: true\n"
      "  - name: alice\n"
      "    rpcs: [\"TargetService/*\"]\n"
      "    allow_declared: true\n");
  audit_ = v1::AuditService::NewStub(channel_);
  for (const std::string& actor : {std::string("alice"), std::string("auditor")}) {
    grpc::ClientContext context;
    context.AddMetadata("credledger-actor", actor);
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    v1::GetStateAtRequest request;
    request.mutable_as_of()->set_seq(0);
    v1::GetStateAtResponse response;
    grpc::Status status = audit_->GetStateAt(&context, request, &response);
    EXPECT_EQ(status.error_code(),
              actor == "alice" ? grpc::StatusCode::PERMISSION_DENIED : grpc::StatusCode::OK)
        << actor << ": " << status.error_message();
  }
}

}  // namespace audit_api_integration_test
}  // namespace credledger::testing
