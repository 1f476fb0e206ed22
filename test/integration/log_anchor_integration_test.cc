// What anchors the log of a real Server at start-up (docs/audit.md, "Start-up check",
// "Witnesses" and "Adopting a log"): the attacks of an insider with a copy of the database file
// of a keyed service - a consistent re-hash after an edit with every checkpoint or only the
// later ones deleted, a deleted revocation with the log renumbered and padded, a truncated
// tail - each refused at start; adoption with a reason, recorded; a key rotation anchored by
// --trusted-public-key; and the file witness kept up to date.
#include <sqlite3.h>

#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "audit/file_witness.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/event_codec.h"
#include "test/audit/verifier_test_log.h"
#include "test/integration/api_fixture.h"

namespace credledger::testing {
namespace log_anchor_integration_test {

using ::testing::AllOf;
using ::testing::HasSubstr;

class LogAnchorIntegrationTest : public ApiFixture {
 protected:
  void SetUp() override {
    key_ = NewKey("signing-key");
    ApiFixture::SetUp();
  }

  // A new key pair written as <name>.pem and <name>.pub.pem.
  std::unique_ptr<audit::SigningKey> NewKey(const std::string& name) {
    auto key = audit::SigningKey::Generate();
    EXPECT_OK(key);
    std::ofstream(dir_.path() / (name + ".pem")) << key->PrivatePem();
    std::ofstream(dir_.path() / (name + ".pub.pem")) << key->public_key().Pem();
    return std::make_unique<audit::SigningKey>(*std::move(key));
  }

  void Configure(service::ServeOptions& options) override {
    options.audit.signing_key = dir_.path() / (signing_key_name_ + ".pem");
    options.audit.checkpoints.every_events = 4;
    if (with_witness_) options.audit.witness = absl::StrCat("file:", witness_path().string());
    for (const std::string& trusted : trusted_keys_) {
      options.audit.trusted_public_keys.push_back(dir_.path() / (trusted + ".pub.pem"));
    }
    options.audit.adopt_log = !adopt_reason_.empty();
    options.audit.adopt_reason = adopt_reason_;
    options.audit.adopted_by = adopt_reason_.empty() ? "" : "jane";
  }

  std::filesystem::path db() const { return dir_.path() / "var" / "credledger.db"; }
  std::filesystem::path witness_path() const { return dir_.path() / "witness.jsonl"; }

  // Options as StartServer builds them, to start a server that may be refused.
  absl::StatusOr<std::unique_ptr<service::Server>> TryStart() {
    service::ServeOptions options;
    options.grpc.insecure_allow_all = true;
    options.log.db_path = db();
    options.grpc.listen_address = "127.0.0.1:0";
    Configure(options);
    return service::Server::Start(options);
  }

  // Registers `count` Targets, revokes the second and registers two more, then stops the server (a
  // clean shutdown: the head is checkpointed and, with a witness, published).
  void FillAndStop(int count) {
    for (int i = 1; i <= count; ++i) Register("demo", absl::StrCat("t", i), absl::StrCat("r", i));
    v1::RevokeRequest revoke;
    revoke.set_namespace_("demo");
    revoke.set_name("t2");
    revoke.set_reason("key leaked");
    revoke.set_request_id("revoke-t2");
    v1::RevokeResponse revoked;
    ASSERT_TRUE(Call(&v1::TargetService::Stub::Revoke, revoke, &revoked).ok());
    Register("demo", "after-1", "after-1");
    Register("demo", "after-2", "after-2");
    server_->Shutdown();
    server_.reset();
  }

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

  // Every stored event, read through a store opened read-only.
  std::vector<store::RecordedEvent> StoredEvents() {
    store::SqliteEventStoreOptions options;
    options.path = db();
    options.read_only = true;
    auto log = store::SqliteEventStore::Open(options);
    EXPECT_OK(log);
    if (!log.ok()) return {};
    auto events = (*log)->ReadAll(0, 1 << 20);
    EXPECT_OK(events);
    return events.ok() ? *std::move(events) : std::vector<store::RecordedEvent>{};
  }

  // Rewrites the log from `seq` on with `edit`'s version of its events, renumbered (seq and
  // stream versions) and re-hashed consistently, and deletes the checkpoints from `seq` on: the
  // forgery an insider without the key can make.
  void Rewrite(int64_t seq, const std::function<void(std::vector<store::RecordedEvent>&)>& edit) {
    std::vector<store::RecordedEvent> events = StoredEvents();
    ASSERT_FALSE(events.empty());
    std::vector<store::RecordedEvent> tail(events.begin() + (seq - 1), events.end());
    edit(tail);
    std::map<std::string, std::pair<int64_t, std::string>> streams;  // next version, hash
    for (int64_t i = 0; i < seq - 1; ++i) {
      streams[events[i].stream] = {events[i].stream_version + 1, events[i].stream_hash};
    }
    std::string chain = events[seq - 2].chain_hash;
    for (size_t i = 0; i < tail.size(); ++i) {
      store::RecordedEvent& e = tail[i];
      e.seq = seq + static_cast<int64_t>(i);
      auto [it, added] = streams.try_emplace(e.stream, 0, std::string(32, '\0'));
      e.stream_version = it->second.first++;
      e.digest = audit::verifier_testing::SpecDigest(e);
      e.prev_chain_hash = chain;
      e.chain_hash = chain = audit::verifier_testing::SpecSha256(chain + e.digest);
      e.stream_hash = it->second.second =
          audit::verifier_testing::SpecSha256(it->second.second + e.digest);
    }
    ASSERT_NO_FATAL_FAILURE(Tamper(absl::StrCat(
        "DROP TRIGGER events_refuse_delete; DROP TRIGGER events_check_append; "
        "DROP TRIGGER checkpoints_refuse_delete; DELETE FROM checkpoints WHERE seq >= ",
        seq, "; DELETE FROM events WHERE seq >= ", seq, ";")));
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db().c_str(), &raw), SQLITE_OK);
    for (const store::RecordedEvent& e : tail) {
      sqlite3_stmt* stmt = nullptr;
      ASSERT_EQ(sqlite3_prepare_v2(raw,
                                   "INSERT INTO events VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
                                   "?9, ?10, ?11, ?12, ?13)",
                                   -1, &stmt, nullptr),
                SQLITE_OK)
          << sqlite3_errmsg(raw);
      sqlite3_bind_int64(stmt, 1, e.seq);
      sqlite3_bind_text(stmt, 2, e.stream.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_int64(stmt, 3, e.stream_version);
      const std::string* blobs[] = {&e.event_id};
      sqlite3_bind_blob(stmt, 4, blobs[0]->data(), 16, SQLITE_TRANSIENT);
      sqlite3_bind_text(stmt, 5, e.type.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_int64(stmt, 6, e.schema_version);
      sqlite3_bind_int64(stmt, 7, e.recorded_at_us);
      int column = 8;
      for (const std::string* blob : {&e.metadata, &e.payload, &e.digest, &e.prev_chain_hash,
                                      &e.chain_hash, &e.stream_hash}) {
        sqlite3_bind_blob(stmt, column++, blob->data(), static_cast<int>(blob->size()),
                          SQLITE_TRANSIENT);
      }
      EXPECT_EQ(sqlite3_step(stmt), SQLITE_DONE) << sqlite3_errmsg(raw);
      sqlite3_finalize(stmt);
    }
    sqlite3_close(raw);
  }

  // Replaces the server SetUp started by one on a new log with a file witness.
  void StartAfreshWithWitness() {
    server_->Shutdown();
    server_.reset();
    std::filesystem::remove_all(dir_.path() / "var");
    with_witness_ = true;
    StartServer();
  }

  // Starts the server adopting the log with `reason`; the adoption is recorded.
  void StartServerAdopting(const std::string& reason) {
    adopt_reason_ = reason;
    StartServer();
    EXPECT_FALSE(Adoptions().empty());
  }

  // The seq of the revocation FillAndStop recorded.
  int64_t RevocationSeq() {
    for (const store::RecordedEvent& e : StoredEvents()) {
      if (e.type == "credledger.v1.TargetRevoked") return e.seq;
    }
    ADD_FAILURE() << "no revocation";
    return 0;
  }

  // An edit of the first event of `tail`, the revocation: another reason, a valid payload.
  static void EditReason(std::vector<store::RecordedEvent>& tail) {
    v1::TargetRevoked revoked;
    ASSERT_TRUE(revoked.ParseFromString(tail.front().payload));
    revoked.set_reason("routine rotation");
    tail.front().payload = revoked.SerializeAsString();
  }

  // The LogAdopted events of the log.
  std::vector<v1::LogAdopted> Adoptions() {
    std::vector<v1::LogAdopted> adoptions;
    for (const store::RecordedEvent& e : StoredEvents()) {
      if (e.type != "credledger.v1.LogAdopted") continue;
      auto decoded = store::EventCodec::Default().Decode(e);
      EXPECT_OK(decoded);
      if (decoded.ok()) adoptions.push_back(decoded->log_adopted());
    }
    return adoptions;
  }

  std::unique_ptr<audit::SigningKey> key_;
  std::string signing_key_name_ = "signing-key";
  std::vector<std::string> trusted_keys_;
  bool with_witness_ = false;
  std::string adopt_reason_;
};

TEST_F(LogAnchorIntegrationTest, ARehashWithEveryCheckpointDeletedIsRefusedUntilAdopted) {
  ASSERT_NO_FATAL_FAILURE(FillAndStop(6));
  const int64_t head = static_cast<int64_t>(StoredEvents().size());
  ASSERT_NO_FATAL_FAILURE(Rewrite(RevocationSeq(), EditReason));
  ASSERT_NO_FATAL_FAILURE(Tamper("DELETE FROM checkpoints;"));
  EXPECT_THAT(
      TryStart(),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               AllOf(HasSubstr(absl::StrCat("the log holds ", head, " events and no checkpoint")),
                     HasSubstr("--adopt-log --reason"))));
  EXPECT_TRUE(Adoptions().empty());

  adopt_reason_ = "restored from the 02:00 backup after disk loss";
  StartServer();
  const std::vector<v1::LogAdopted> adoptions = Adoptions();
  ASSERT_EQ(adoptions.size(), 1u);
  EXPECT_EQ(adoptions[0].reason(), adopt_reason_);
  EXPECT_EQ(adoptions[0].adopted_by(), "jane");
  EXPECT_EQ(adoptions[0].head_seq(), head);
  EXPECT_EQ(adoptions[0].trusted_checkpoint_seq(), 0);
  ASSERT_EQ(adoptions[0].refusals_size(), 1);
  EXPECT_THAT(adoptions[0].refusals(0), HasSubstr("no checkpoint"));

  // Signed from then on: the next start needs no adoption.
  server_->Shutdown();
  server_.reset();
  adopt_reason_.clear();
  EXPECT_OK(TryStart());
  StartServer();  // for TearDown
}

TEST_F(LogAnchorIntegrationTest, ARewriteWithTheLaterCheckpointsDeletedContradictsTheWitness) {
  ASSERT_NO_FATAL_FAILURE(StartAfreshWithWitness());
  ASSERT_NO_FATAL_FAILURE(FillAndStop(6));
  const int64_t head = static_cast<int64_t>(StoredEvents().size());
  auto witnessed = audit::FileWitness(witness_path(), "w").ReadAll();
  ASSERT_OK(witnessed);
  ASSERT_FALSE(witnessed->empty());
  EXPECT_EQ(witnessed->back().seq(), head) << "the last checkpoint is published at shutdown";

  ASSERT_NO_FATAL_FAILURE(Rewrite(RevocationSeq(), EditReason));
  EXPECT_THAT(
      TryStart(),
      StatusIs(
          absl::StatusCode::kFailedPrecondition,
          AllOf(HasSubstr(absl::StrCat("the checkpoint the witness file:", witness_path().string(),
                                       " holds at seq ", head, ": seq ", head, " has chain_hash")),
                HasSubstr("--adopt-log"))));
  StartServerAdopting("investigated: the rewrite is ours");
}

TEST_F(LogAnchorIntegrationTest, ADeletedRevocationRenumberedAndPaddedContradictsTheWitness) {
  ASSERT_NO_FATAL_FAILURE(StartAfreshWithWitness());
  ASSERT_NO_FATAL_FAILURE(FillAndStop(6));
  const std::vector<store::RecordedEvent> before = StoredEvents();
  ASSERT_NO_FATAL_FAILURE(Rewrite(RevocationSeq(), [](std::vector<store::RecordedEvent>& tail) {
    store::RecordedEvent pad = tail.back();
    tail.erase(tail.begin());
    pad.event_id[0] ^= 0x5a;
    pad.recorded_at_us += 1;
    tail.push_back(pad);
  }));
  ASSERT_EQ(StoredEvents().size(), before.size()) << "renumbered and padded to the same length";
  EXPECT_THAT(TryStart(), StatusIs(absl::StatusCode::kFailedPrecondition,
                                   HasSubstr(absl::StrCat("holds at seq ", before.size()))));
  StartServerAdopting("investigated");
}

TEST_F(LogAnchorIntegrationTest, ATruncatedTailEndsBeforeTheWitnessedCheckpoint) {
  ASSERT_NO_FATAL_FAILURE(StartAfreshWithWitness());
  ASSERT_NO_FATAL_FAILURE(FillAndStop(6));
  const int64_t head = static_cast<int64_t>(StoredEvents().size());
  ASSERT_NO_FATAL_FAILURE(Tamper(
      absl::StrCat("DROP TRIGGER events_refuse_delete; DROP TRIGGER checkpoints_refuse_delete; "
                   "DELETE FROM checkpoints WHERE seq > ",
                   head - 3, "; DELETE FROM events WHERE seq > ", head - 3, ";")));
  EXPECT_THAT(TryStart(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr(absl::StrCat("the log ends at seq ", head - 3,
                                              ", before the checkpoint at seq ", head))));
  StartServerAdopting("restored from backup; the last three events are lost");
}

TEST_F(LogAnchorIntegrationTest, AnEmptyWitnessBesideAnExistingLogNeedsAdoptionOnce) {
  ASSERT_NO_FATAL_FAILURE(FillAndStop(2));
  with_witness_ = true;
  EXPECT_THAT(TryStart(), StatusIs(absl::StatusCode::kFailedPrecondition,
                                   HasSubstr("holds no checkpoint, but the log holds")));
  StartServerAdopting("witness introduced");
  ASSERT_EQ(Adoptions().size(), 1u);
  EXPECT_EQ(Adoptions()[0].witness(), absl::StrCat("file:", witness_path().string()));
  server_->Shutdown();
  server_.reset();
  adopt_reason_.clear();
  auto witnessed = audit::FileWitness(witness_path(), "w").ReadAll();
  ASSERT_OK(witnessed);
  ASSERT_FALSE(witnessed->empty());
  EXPECT_EQ(witnessed->back().seq(), static_cast<int64_t>(StoredEvents().size()));
  StartServer();
}

TEST_F(LogAnchorIntegrationTest, ARotatedKeyIsAnchoredByTheTrustedEarlierKey) {
  ASSERT_NO_FATAL_FAILURE(FillAndStop(2));
  // The head was checkpointed with the old key; then the service restarts with a new one.
  const auto rotated = NewKey("rotated-key");
  signing_key_name_ = "rotated-key";
  EXPECT_THAT(TryStart(),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr(key_->key_id())));
  trusted_keys_ = {"signing-key"};
  StartServer();
}

TEST_F(LogAnchorIntegrationTest, AdoptingALogTheChecksAcceptRecordsNothing) {
  ASSERT_NO_FATAL_FAILURE(FillAndStop(2));
  const size_t events = StoredEvents().size();
  adopt_reason_ = "nothing wrong";
  StartServer();
  EXPECT_TRUE(Adoptions().empty());
  EXPECT_LE(StoredEvents().size(), events + 1) << "at most a ServiceConfigured";
}

}  // namespace log_anchor_integration_test
}  // namespace credledger::testing
