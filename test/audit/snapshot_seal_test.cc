// Sealed projection snapshots (docs/audit.md, "Snapshots"): the signing bytes against an
// independent construction of the documented layout, every field covered by the signature,
// and each reason a seal does not verify, named in words that never quote the state.
#include "audit/snapshot_seal.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/audit/verifier_test_log.h"
#include "test/support/status_matchers.h"

namespace credledger::audit {
namespace snapshot_seal_test {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::StatusIs;
using verifier_testing::SpecInt;
using verifier_testing::SpecLp;
using verifier_testing::SpecSha256;

// A state no message may quote.
constexpr char kState[] = "state-bytes-that-stay-private";

std::string Hash(char fill) { return std::string(32, fill); }

class SnapshotSealTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (std::optional<SigningKey>* key : {&key_, &other_}) {
      ASSERT_OK_AND_ASSIGN(SigningKey generated, SigningKey::Generate());
      key->emplace(std::move(generated));
    }
  }

  // A snapshot of "credentials" at seq 40 holding kState, sealed with `key` for the event
  // with chain hash Hash('c').
  store::Snapshot Sealed(const SigningKey& key) {
    store::Snapshot snapshot{
        .projection = "credentials", .seq = 40, .schema_version = 3, .state = kState};
    EXPECT_OK(SealSnapshot(key, Hash('c'), snapshot));
    return snapshot;
  }

  // Expects CheckSnapshot with the key to fail with kPermissionDenied, a message containing
  // `reason`, and never the state.
  void ExpectRefused(const store::Snapshot& snapshot, const std::string& chain_hash,
                     const std::string& reason) {
    absl::Status checked = CheckSnapshot(key_->public_key(), snapshot, chain_hash);
    EXPECT_THAT(checked, StatusIs(absl::StatusCode::kPermissionDenied,
                                  AllOf(HasSubstr(reason), Not(HasSubstr(kState)))));
  }

  std::optional<SigningKey> key_;
  std::optional<SigningKey> other_;
};

TEST_F(SnapshotSealTest, SigningBytesFollowTheDocumentedLayout) {
  const store::Snapshot snapshot = Sealed(*key_);
  EXPECT_EQ(snapshot.chain_hash, Hash('c'));
  EXPECT_EQ(snapshot.state_sha256, SpecSha256(kState));
  EXPECT_EQ(snapshot.key_id, key_->key_id());
  EXPECT_EQ(SnapshotSigningBytes(snapshot),
            SpecLp("credledger-snapshot-v1") + SpecLp("credentials") + SpecLp(SpecInt(40)) +
                SpecLp(SpecInt(3)) + SpecLp(Hash('c')) + SpecLp(SpecSha256(kState)) +
                SpecLp(key_->key_id()));
  EXPECT_TRUE(key_->public_key().Verify(SnapshotSigningBytes(snapshot), snapshot.signature));
  EXPECT_OK(CheckSnapshot(key_->public_key(), snapshot, Hash('c')));
}

TEST_F(SnapshotSealTest, EveryFieldIsCoveredBySignatureOrStateHash) {
  const std::vector<std::pair<std::string, std::function<void(store::Snapshot&)>>> edits = {
      {"projection", [](store::Snapshot& s) { s.projection = "status"; }},
      {"seq", [](store::Snapshot& s) { s.seq = 45; }},
      {"schema_version", [](store::Snapshot& s) { s.schema_version = 4; }},
      {"chain_hash", [](store::Snapshot& s) { s.chain_hash = Hash('d'); }},
      {"state_sha256", [](store::Snapshot& s) { s.state_sha256 = Hash('e'); }},
  };
  for (const auto& [field, edit] : edits) {
    SCOPED_TRACE(field);
    store::Snapshot snapshot = Sealed(*key_);
    edit(snapshot);
    ExpectRefused(snapshot, snapshot.chain_hash, ": bad signature");
  }
  store::Snapshot snapshot = Sealed(*key_);
  snapshot.state += "!";
  ExpectRefused(snapshot, Hash('c'), "snapshot \"credentials\" at seq 40: its state hashes to ");
}

TEST_F(SnapshotSealTest, AnUnsignedSnapshotIsRefused) {
  store::Snapshot no_signature = Sealed(*key_);
  no_signature.signature.clear();
  ExpectRefused(no_signature, Hash('c'), "snapshot \"credentials\" at seq 40 is not signed");
  store::Snapshot no_key = Sealed(*key_);
  no_key.key_id.clear();
  ExpectRefused(no_key, Hash('c'), "is not signed");
}

TEST_F(SnapshotSealTest, ASnapshotSignedByAnotherKeyIsRefusedUnlessThatKeyIsTrusted) {
  const store::Snapshot foreign = Sealed(*other_);
  ExpectRefused(foreign, Hash('c'),
                "snapshot \"credentials\" at seq 40 is signed by key \"" + other_->key_id() +
                    "\", not by the given public key " + key_->key_id());
  KeyRing both;
  both.Add(key_->public_key());
  both.Add(other_->public_key());
  EXPECT_OK(CheckSnapshot(both, foreign, Hash('c')));
}

// A genuine seal of another history: the event at its seq differs from the one it names, or
// the log no longer holds an event there.
TEST_F(SnapshotSealTest, ASnapshotOfAnotherChainIsRefused) {
  const store::Snapshot snapshot = Sealed(*key_);
  ExpectRefused(snapshot, Hash('x'),
                "snapshot \"credentials\" at seq 40 states chain hash 636363636363..., the "
                "event at seq 40 has 787878787878...");
  ExpectRefused(snapshot, "",
                "snapshot \"credentials\" at seq 40 names an event the log does "
                "not hold");
}

TEST_F(SnapshotSealTest, SealingRefusesAPositionItCannotName) {
  store::Snapshot before_the_log{.projection = "credentials", .seq = 0, .state = kState};
  EXPECT_THAT(SealSnapshot(*key_, Hash('c'), before_the_log),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("seq must be at least 1")));
  store::Snapshot short_hash{.projection = "credentials", .seq = 1, .state = kState};
  EXPECT_THAT(SealSnapshot(*key_, std::string(31, 'c'), short_hash),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("chain_hash must be 32 bytes, got 31")));
  EXPECT_TRUE(short_hash.signature.empty());
}

TEST_F(SnapshotSealTest, KeySnapshotSealSignsWithItsKeyAndTrustsItsRing) {
  const KeySnapshotSeal seal(*key_, KeyRing(key_->public_key()));
  store::Snapshot snapshot{.projection = "status", .seq = 7, .state = kState};
  ASSERT_OK(seal.Seal(Hash('a'), snapshot));
  EXPECT_EQ(snapshot.key_id, key_->key_id());
  EXPECT_OK(seal.Check(snapshot, Hash('a')));
  EXPECT_THAT(seal.Check(Sealed(*other_), Hash('c')),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("is signed by key")));
}

}  // namespace snapshot_seal_test
}  // namespace credledger::audit
